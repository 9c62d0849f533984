// Asks for 64 TiB, more than any host has: malloc must fail cleanly (NULL), with no
// host out-of-memory, and the program handles it.
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    char *p = malloc((size_t)1 << 46);
    if (!p) {
        printf("malloc failed\n");
        return 0;
    }
    p[0] = 1;
    free(p);
    return 0;
}
