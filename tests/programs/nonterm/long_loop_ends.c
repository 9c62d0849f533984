// expect-sc: pass
// why: a long loop whose state never repeats (a counter goes up to a bound) ends normally: only a return to the same state is a loop that never ends, whatever the hash of a sample looks like.
#include <assert.h>

volatile int sink;

int main(void) {
    unsigned n = 0;
    for (unsigned i = 0; i < 60000; i++)
        n += i & 3;
    sink = (int)n;
    assert(n == 90000);
    return 0;
}
