// expect-sc: fail assertion
// why: a failing assert() in a single-threaded program is reported as an assertion.
#include <assert.h>

volatile int value = 41;

int main(void) {
    int v = value + 1;
    assert(v == 43);
    return 0;
}
