// expect-sc: fail uninitialized
// why: and with a defined 1 keeps an undefined bit undefined: branching on it is an error.
#include "common.h"
#include <stdio.h>

int main(void) {
    uint32_t v = partly_defined(0x0, 0);
    if (v & 1)
        puts("odd");
    return 0;
}
