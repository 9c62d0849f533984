// expect-sc: fail use-after-free
// why: reading a heap object after free() is a use after free.
#include <stdlib.h>

int *volatile keep;

int main(void) {
    int *p = malloc(sizeof(int));
    if (!p)
        return 0;
    *p = 5;
    keep = p;
    free(p);
    return *keep == 5;
}
