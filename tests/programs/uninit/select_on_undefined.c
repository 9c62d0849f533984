// expect-sc: fail uninitialized
// why: a select (or branch) whose condition is undefined is an error.
#include "common.h"
#include <stdio.h>

int main(void) {
    uint32_t c = partly_defined(0x0, 0);
    volatile uint32_t r = (c & 1) ? 10u : 20u;
    printf("%u\n", (unsigned)(r > 5));
    return 0;
}
