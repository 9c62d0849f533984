// expect-sc: pass
// why: packed bit-field structs (one i24/i56/i72/i168/i200 each at -O0) copied whole into a global print every field as native code does (issue 35's reproducer among them).
#include <stdio.h>
#include "shapes.h"

static struct S24 g24 = {1, 2, 3};
static struct S56 g56 = {-1, 2, 3};
static struct S72 g72 = {1, -2, 3, -4};
static struct S168 g168 = {-4044, -215, 16, 495, 62, -21, 8, 7300, 31};
static struct S200 g200 = {1, -2, 3, -4};

int main(void) {
    struct S24 l24 = {17, -1000, 200};
    struct S56 l56 = {-4096, 1000000007, 4095};
    struct S72 l72 = {5, -1073741824, 2147483647, -64};
    struct S168 l168 = {-6645, 67, 591, 635, -25, 31, 8, 9674, 6};
    struct S200 l200 = {0xfedcba987654321ULL, -1152921504606846976LL, 131071, 2305843009213693951LL};
    g24 = l24;
    g56 = l56;
    g72 = l72;
    g168 = l168;
    g200 = l200;
    printf("%u %d %u\n", g24.a, g24.b, g24.c);
    printf("%d %u %d\n", g56.a, g56.b, g56.c);
    printf("%u %d %u %d\n", g72.a, g72.b, g72.c, g72.d);
    printf("%d %d %d %u %d %d %u %u %d\n", g168.f0, g168.f1, g168.f2, g168.f3, g168.f4,
           g168.f5, g168.f6, g168.f7, g168.f8);
    printf("%llx %lld %u %lld\n", (unsigned long long)g200.a, (long long)g200.b, g200.c,
           (long long)g200.d);
    return 0;
}
