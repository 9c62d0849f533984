// expect-sc: fail uninitialized
// why: a select carries the chosen operand's definedness: the undefined one is chosen.
#include "common.h"
#include <stdio.h>

int main(void) {
    volatile int flag = 0;
    uint32_t u = partly_defined(0x0, 0);
    uint32_t r = flag ? 3u : u;
    if (r == 3)
        puts("three");
    return 0;
}
