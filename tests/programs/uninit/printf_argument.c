// expect-sc: fail uninitialized
// why: printf inspects the arguments it formats: an undefined one is an error.
#include "common.h"
#include <stdio.h>
#include <string.h>

int main(void) {
    uint32_t v = partly_defined(0x0, 0);
    printf("%u\n", (unsigned)v);
    return 0;
}
