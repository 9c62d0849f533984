// expect-sc: fail uninitialized
// why: add makes every bit above the lowest undefined one undefined: a carry out of the undefined low byte may change the next one.
#include "common.h"
#include <stdio.h>

int main(void) {
    uint32_t v = partly_defined(0xe, 7);
    if ((((v + 1) >> 8) & 0xff) == 7)
        puts("seven");
    return 0;
}
