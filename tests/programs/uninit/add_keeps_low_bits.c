// expect-sc: pass
// why: add is undefined only from the lowest undefined input bit up: the low byte stays defined.
#include "common.h"
#include <stdio.h>

int main(void) {
    uint32_t v = partly_defined(0x1, 7);
    if (((v + 1) & 0xff) == 8)
        puts("eight");
    return 0;
}
