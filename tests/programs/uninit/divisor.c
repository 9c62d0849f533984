// expect-sc: fail uninitialized
// why: a divisor with undefined bits is an error.
#include "common.h"
#include <stdio.h>
#include <string.h>

int main(void) {
    uint32_t d = partly_defined(0x0, 0) | 1;
    volatile uint32_t q = 100 / d;
    (void)q;
    return 0;
}
