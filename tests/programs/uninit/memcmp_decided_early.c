// expect-sc: pass
// why: memcmp and memchr inspect bytes only up to the first difference or match: the
// why: never-written bytes after it do not decide the result.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    char *a = malloc(8), *b = malloc(8);
    memcpy(a, "ax", 2);
    memcpy(b, "ay", 2);
    volatile int r = memcmp(a, b, 8);
    volatile char *hit = memchr(a, 'x', 8);
    if (r < 0 && hit == a + 1)
        puts("decided early");
    free(a);
    free(b);
    return 0;
}
