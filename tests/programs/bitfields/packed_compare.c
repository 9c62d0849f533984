// expect-sc: pass
// why: packed bit-field structs compared field by field and byte by byte (memcmp) after copies and updates give native's answers.
#include <stdio.h>
#include <string.h>
#include "shapes.h"

static int same168(const struct S168 *x, const struct S168 *y) {
    return x->f0 == y->f0 && x->f1 == y->f1 && x->f2 == y->f2 && x->f3 == y->f3 &&
           x->f4 == y->f4 && x->f5 == y->f5 && x->f6 == y->f6 && x->f7 == y->f7 &&
           x->f8 == y->f8;
}

int main(void) {
    struct S168 a = {-6645, 67, 591, 635, -25, 31, 8, 9674, 6};
    struct S168 b = a;
    printf("copy: fields %d bytes %d\n", same168(&a, &b), memcmp(&a, &b, sizeof a) == 0);
    b.f8 = 7;
    printf("f8 changed: fields %d bytes %d\n", same168(&a, &b), memcmp(&a, &b, sizeof a) == 0);
    b.f8 = 6;
    printf("f8 restored: fields %d bytes %d\n", same168(&a, &b), memcmp(&a, &b, sizeof a) == 0);
    b.f0 = -b.f0;
    printf("f0 negated: %d %d less %d\n", a.f0, b.f0, a.f0 < b.f0);
    struct S200 c = {1, -1, 2, -2}, d = {1, -1, 2, -2};
    printf("S200 equal %d, b<d %d\n", memcmp(&c, &d, sizeof c) == 0, c.b < c.d);
    d.d = 2305843009213693951LL;
    printf("S200 after update equal %d, d.d>c.d %d, size %zu\n", memcmp(&c, &d, sizeof c) == 0,
           d.d > c.d, sizeof c);
    return 0;
}
