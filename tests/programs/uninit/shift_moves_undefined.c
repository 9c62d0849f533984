// expect-sc: fail uninitialized
// why: a right shift brings undefined upper bits down into the tested byte.
#include "common.h"
#include <stdio.h>

int main(void) {
    uint32_t v = partly_defined(0x1, 7);
    if (((v >> 8) & 0xff) != 0)
        puts("nonzero");
    return 0;
}
