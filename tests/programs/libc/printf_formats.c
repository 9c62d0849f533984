// expect-sc: pass
// why: printf conversions and flags print exactly what glibc prints (compare printf_formats.stdout).
#include <stddef.h>
#include <stdio.h>

int main(void) {
    int neg = -42;
    unsigned u = 3000000000u;
    long l = -1234567890123L;
    long long ll = 9000000000000000000LL;
    unsigned long ul = 18446744073709551615UL;
    size_t z = sizeof(long long) * 3;

    printf("d=%d i=%i u=%u\n", neg, 17, u);
    printf("x=%x X=%X o=%o\n", 255u, 48879u, 8u);
    printf("c=%c s=%s\n", 'Q', "text");
    printf("ld=%ld lld=%lld lu=%lu zu=%zu\n", l, ll, ul, z);
    printf("f=%f .3f=%.3f neg=%f\n", 2.5, 3.14159, -0.25);
    printf("[%5d] [%-5d] [%05d] [%5s] [%-6s]\n", 42, 42, 42, "ab", "cd");
    printf("percent=%% hex=%#x plus=%+d space=% d\n", 255u, 7, 7);
    printf("char-array=%.2s int-min=%d\n", "xyz", -2147483647 - 1);
    /* %a as glibc writes it: exact digits, precision rounding (ties to even, with a
       carry into the leading digit), subnormals, zero, flags and padding. */
    printf("a=%a %a %a %a %a %a\n", 1.0, -0.1, 1e300, 0.0, -0.0, 4.9406564584124654e-324);
    printf("a=%a %A %.0a %.0a %.1a %.2a %.3a\n", 2.2250738585072009e-308, 255.5, 1.5, 2.5,
           1.96875, 1.0 / 3.0, 0.1);
    printf("a=%#.0a [%12a] [%-12a] [%012a] %+a % a %.15a\n", 1.0, 1.5, 1.5, -1.5, 3.0, 3.0,
           0.1);
    int n = printf("count\n");
    printf("printed=%d\n", n);
    return 0;
}
