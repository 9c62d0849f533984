// expect-sc: fail uninitialized
// why: the exit status passed to exit() must be defined.
#include "common.h"
#include <stdio.h>
#include <string.h>

int main(void) {
    uint32_t v = partly_defined(0x0, 0);
    exit((int)v);
    return 0;
}
