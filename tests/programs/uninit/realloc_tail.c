// expect-sc: fail uninitialized
// why: the part realloc adds to a block is undefined until written.
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int *volatile c = malloc(2 * sizeof(int));
    c[0] = 5;
    c[1] = 6;
    c = realloc(c, 4 * sizeof(int));
    if (c[3] == 0)
        puts("zero");
    free(c);
    return 0;
}
