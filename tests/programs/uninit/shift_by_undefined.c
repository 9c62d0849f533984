// expect-sc: fail uninitialized
// why: a shift by an undefined amount makes every bit of the result undefined.
#include "common.h"
#include <stdio.h>

int main(void) {
    uint32_t n = partly_defined(0x0, 0);
    uint32_t v = 0xffu << (n & 7);
    if (v & 0x100)
        puts("set");
    return 0;
}
