// expect-sc: fail uninitialized
// why: memcmp inspects the bytes it compares: a never-written byte is an error.
#include "common.h"
#include <stdio.h>
#include <string.h>

int main(void) {
    char *a = malloc(4), *b = malloc(4);
    memcpy(a, "ab", 2);
    memcpy(b, "ab", 2);
    volatile int r = memcmp(a, b, 4);
    (void)r;
    return 0;
}
