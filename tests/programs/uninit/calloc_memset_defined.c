// expect-sc: pass
// why: calloc, memset and globals are defined; realloc keeps the old bytes' definedness.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int global_counter;

int main(void) {
    int *a = calloc(4, sizeof(int));
    int *b = malloc(4 * sizeof(int));
    memset(b, 0, 4 * sizeof(int));
    int *c = malloc(2 * sizeof(int));
    c[0] = 5;
    c[1] = 6;
    c = realloc(c, 4 * sizeof(int));
    if (a[3] == 0 && b[2] == 0 && global_counter == 0 && c[1] == 6)
        puts("defined");
    free(a);
    free(b);
    free(c);
    return 0;
}
