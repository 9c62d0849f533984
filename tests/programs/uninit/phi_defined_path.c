// expect-sc: pass
// why: a phi carries the incoming value of the path taken: here the defined one.
#include "common.h"
#include <stdio.h>

int main(void) {
    volatile int flag = 1;
    uint32_t r;
    if (flag)
        r = 1;
    else
        r = partly_defined(0x0, 0);
    if (r)
        puts("set");
    return 0;
}
