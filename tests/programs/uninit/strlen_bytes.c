// expect-sc: fail uninitialized
// why: strlen inspects bytes up to the NUL: a string never terminated by a write is an error.
#include "common.h"
#include <stdio.h>
#include <string.h>

int main(void) {
    char *s = malloc(8);
    s[0] = 0x61;
    volatile size_t n = strlen(s);
    (void)n;
    return 0;
}
