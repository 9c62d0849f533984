// expect-sc: fail invalid-free
// why: freeing a pointer into the middle of a heap block (not its start) is an invalid free.
#include <stdlib.h>

char *volatile target;

int main(void) {
    char *p = malloc(16);
    if (!p)
        return 0;
    target = p + 4;
    free(target);
    return 0;
}
