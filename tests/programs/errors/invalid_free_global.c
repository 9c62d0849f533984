// expect-sc: fail invalid-free
// why: passing the address of a global to free() is an invalid free.
#include <stdlib.h>

int global_value;
int *volatile target = &global_value;

int main(void) {
    free(target);
    return 0;
}
