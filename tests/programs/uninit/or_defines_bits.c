// expect-sc: pass
// why: or with defined 1s makes those bits defined: the upper three bytes are forced to 1.
#include "common.h"
#include <stdio.h>

int main(void) {
    uint32_t v = partly_defined(0x1, 7);
    if ((v | 0xffffff00u) == 0xffffff07u)
        puts("seven");
    return 0;
}
