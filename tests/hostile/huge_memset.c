// memset of 1 TiB into a 16-byte buffer: an out-of-bounds verdict, and the checker
// must not try to allocate the terabyte on the host first.
#include <stdio.h>
#include <string.h>
char buf[16];
int main(void) {
    volatile size_t n = (size_t)1 << 40;
    memset(buf, 7, n);
    printf("%d\n", buf[0]);
    return 0;
}
