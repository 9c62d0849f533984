// C interface to SeqlockPair for Rust.
#include <new>

#include "seqlock.hpp"

extern "C" {

// Null when out of memory (built with -fno-exceptions, so no bad_alloc).
SeqlockPair *seqlock_pair_new(int first, int second) {
    return new (std::nothrow) SeqlockPair(first, second);
}

void seqlock_pair_free(SeqlockPair *pair) { delete pair; }

void seqlock_pair_write(SeqlockPair *pair, int first, int second) {
    pair->write(first, second);
}

bool seqlock_pair_try_read(const SeqlockPair *pair, int *first, int *second) {
    return pair->try_read(*first, *second);
}

void seqlock_pair_read(const SeqlockPair *pair, int *first, int *second) {
    pair->read(*first, *second);
}

}  // extern "C"
