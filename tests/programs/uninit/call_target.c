// expect-sc: fail uninitialized
// why: a call through a function pointer that was never written is an error.
#include "common.h"
#include <stdio.h>
#include <string.h>

int main(void) {
    void (**slot)(void) = malloc(sizeof *slot);
    void (*volatile f)(void) = *slot;
    f();
    return 0;
}
