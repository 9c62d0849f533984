// Asks for 64 TiB and uses the result without checking it: the allocation fails, so
// the write is a null dereference (a verdict, not a host crash).
#include <stdlib.h>
int main(void) {
    volatile size_t n = (size_t)1 << 46;
    char *p = malloc(n);
    p[n - 1] = 1;
    return p[n - 1];
}
