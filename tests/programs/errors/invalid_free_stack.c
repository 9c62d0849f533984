// expect-sc: fail invalid-free
// why: passing the address of a local variable to free() is an invalid free.
#include <stdlib.h>

int *volatile target;

int main(void) {
    int local = 1;
    target = &local;
    free(target);
    return 0;
}
