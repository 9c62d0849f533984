// A reader racing with a writer never sees a pair that mixes two writes.
#include <thread>
#include <tso.h>

#include "seqlock.hpp"

TSO_TEST(reader_never_sees_torn_pair) {
    SeqlockPair pair(0, 0);
    std::thread writer([&pair] {
        pair.write(1, 1);
        pair.write(2, 2);
    });
    std::thread reader([&pair] {
        // Two attempts keep the state space small; any successful read must be whole.
        for (int attempt = 0; attempt < 2; attempt++) {
            int first = -1, second = -2;
            if (pair.try_read(first, second)) {
                TSO_ASSERT(first == second);
            }
        }
    });
    writer.join();
    reader.join();
    int first = -1, second = -2;
    bool whole = pair.try_read(first, second);
    TSO_ASSERT(whole && first == 2 && second == 2);
}
