// expect-sc: pass
// why: equality is decided by two defined bits that differ; an ordered compare by the defined top byte.
#include "common.h"
#include <stdio.h>

int main(void) {
    uint32_t v = partly_defined(0x9, 0x80);
    if (v == 0x12345678u)
        puts("equal");
    if (v > 5)
        puts("big");
    return 0;
}
