// expect-sc: pass
// why: and with defined 0s makes those bits defined: only the written low byte is tested.
#include "common.h"
#include <stdio.h>

int main(void) {
    uint32_t v = partly_defined(0x1, 7);
    if ((v & 0xff) == 7)
        puts("seven");
    return 0;
}
