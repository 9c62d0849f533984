// expect-sc: pass
// why: a left shift moves the defined low byte to the top and shifts the undefined bits out.
#include "common.h"
#include <stdio.h>

int main(void) {
    uint32_t v = partly_defined(0x1, 7);
    if ((v << 24) != 0)
        puts("nonzero");
    return 0;
}
