// expect-sc: pass
// why: packed bit-field structs updated field by field (each store a read-modify-write of the whole odd-width integer: and, or, shifts) keep every other field.
#include <stdio.h>
#include "shapes.h"

struct S168 g168;
struct S200 g200;
struct S72 g72;

int main(void) {
    struct S24 l24 = {0, 0, 0};
    l24.b = -777;
    l24.a = 31;
    l24.c += 250;
    l24.b >>= 2;
    printf("%u %d %u\n", l24.a, l24.b, l24.c);
    g168.f8 = -4096;
    g168.f0 = 536870911;
    g168.f7 = 1073741823;
    g168.f4 = -2048;
    g168.f3 = 3;
    g168.f5 = g168.f4 + 17;
    g168.f6 = 1023;
    g168.f1 = -32768;
    g168.f2 = g168.f1 * 2 + 1;
    g168.f0--;
    g168.f7 ^= 0x15555555;
    printf("%d %d %d %u %d %d %u %u %d\n", g168.f0, g168.f1, g168.f2, g168.f3, g168.f4,
           g168.f5, g168.f6, g168.f7, g168.f8);
    for (int i = 0; i < 5; i++) {
        g200.a += 0x123456789abcdefULL;
        g200.b -= 0x1fffffffffffffffLL / 3;
        g200.c ^= (unsigned)(i * 4099);
        g200.d = g200.d * 3 + i;
    }
    printf("%llx %lld %u %lld\n", (unsigned long long)g200.a, (long long)g200.b, g200.c,
           (long long)g200.d);
    g72.d = -1;
    g72.b = 12345678;
    g72.c = g72.b + 99;
    g72.a = 6;
    g72.d += 3;
    printf("%u %d %u %d\n", g72.a, g72.b, g72.c, g72.d);
    return 0;
}
