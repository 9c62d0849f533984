// expect-sc: fail out-of-bounds
// why: memcpy writing 9 bytes into an 8-byte heap block is out of bounds.
#include <stdlib.h>
#include <string.h>

volatile size_t length = 9;

int main(void) {
    char src[16] = "abcdefghijklmno";
    char *dst = malloc(8);
    if (!dst)
        return 0;
    memcpy(dst, src, length);
    int r = dst[0];
    free(dst);
    return r == 0;
}
