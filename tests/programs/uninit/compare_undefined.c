// expect-sc: fail uninitialized
// why: a comparison whose answer the undefined bits can change is undefined.
#include "common.h"
#include <stdio.h>

int main(void) {
    uint32_t v = partly_defined(0x1, 7);
    if (v < 10)
        puts("small");
    return 0;
}
