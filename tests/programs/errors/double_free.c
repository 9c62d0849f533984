// expect-sc: fail double-free
// why: freeing the same heap block twice is a double free.
#include <stdlib.h>

char *volatile alias;

int main(void) {
    char *p = malloc(16);
    alias = p;
    free(p);
    free(alias);
    return 0;
}
