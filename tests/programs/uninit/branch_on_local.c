// expect-sc: fail uninitialized
// why: the program: a volatile read of a local never written, branched on.
#include <stdio.h>

int main(void) {
    int x;
    volatile int *p = &x;
    if (*p > 0)
        puts("positive");
    return 0;
}
