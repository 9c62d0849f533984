// expect-sc: fail uninitialized
// why: an address computed from undefined bits is an error (not a null dereference).
#include "common.h"
#include <stdio.h>
#include <string.h>

int main(void) {
    int **slot = malloc(sizeof *slot);
    int *volatile p = *slot;
    *p = 1;
    return 0;
}
