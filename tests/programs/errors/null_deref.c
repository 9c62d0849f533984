// expect-sc: fail null-dereference
// why: loading through a null pointer is a null dereference.
#include <stddef.h>

int *volatile ptr = NULL;

int main(void) {
    return *ptr;
}
