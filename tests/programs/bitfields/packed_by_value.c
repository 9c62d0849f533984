// expect-sc: pass
// why: packed bit-field structs passed to a function and returned by value, then changed in the callee, leave the caller's copy alone.
#include <stdio.h>
#include "shapes.h"

static struct S168 bump(struct S168 s, int k) {
    s.f0 += k;
    s.f1 -= k;
    s.f7 += (unsigned)k * 1000u;
    s.f8 = -s.f8;
    return s;
}

static long long sum200(struct S200 s) {
    return (long long)s.a + s.b + s.c + s.d;
}

static void print168(struct S168 s) {
    printf("%d %d %d %u %d %d %u %u %d\n", s.f0, s.f1, s.f2, s.f3, s.f4, s.f5, s.f6, s.f7,
           s.f8);
}

int main(void) {
    struct S168 a = {-6645, 67, 591, 635, -25, 31, 8, 9674, 6};
    struct S168 b = bump(a, 100);
    print168(a);
    print168(b);
    print168(bump(bump(b, -3), 7));
    struct S200 c = {0xfffffffffffULL, -123456789012LL, 65535, 987654321098LL};
    printf("%lld\n", sum200(c));
    struct S56 s56 = {-4096, 1000000007, 4095};
    struct S56 t56 = s56;
    t56.b++;
    printf("%d %u %d / %u\n", s56.a, s56.b, s56.c, t56.b);
    return 0;
}
