// Struct assignment through two pointers to the same object: clang emits
// llvm.memcpy with dst == src, which LLVM defines as allowed (equal or disjoint).
#include <stdio.h>
struct S { int a, b, c, d, e, f; };
struct S g = {1, 2, 3, 4, 5, 6};
int main(void) {
    struct S *volatile p = &g;
    struct S *volatile q = &g;
    *p = *q;
    printf("%d\n", g.f);
    return 0;
}
