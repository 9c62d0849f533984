#include <stdio.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

static volatile double dv[] = {0.0, -0.0, 1.0, -1.5, 0.1, 3.14159265358979, 1e300, -1e-300, 123456.789, 2.5, -2.5,
    4294967295.0, 9.2e18, 1e-5, 0.00001234, 99999.95};
static volatile float fv[] = {0.0f, 1.0f, -1.5f, 0.1f, 3.4e38f, 1e-40f, 16777217.0f, -7.75f, 2.5f};
#define ND (sizeof dv / sizeof dv[0])
#define NF (sizeof fv / sizeof fv[0])

/* %g of -0.0 is checked in the printf unit tests; here zeros print unsigned. */
static double nz(double v) { return v == 0 ? 0.0 : v; }
static uint64_t bits_of(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static uint32_t fbits_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

int main(void) {
    volatile double zero = 0.0;
    double nan = zero / zero, inf = 1.0 / zero;
    for (unsigned i = 0; i < ND; i++) {
        double x = dv[i], y = dv[(i + 5) % ND];
        printf("%u: %.17g %.17g %.17g %.17g %.17g\n", i, nz(x + y), nz(x - y), nz(x * y), y != 0 ? nz(x / y) : 0.0, y != 0 ? nz(fmod(x, y)) : 0.0);
        printf("   zbits %llx %llx\n", (unsigned long long)bits_of(x * y), (unsigned long long)bits_of(x - y));
        printf("   %f %e %g %.3f %.0f %10.4f %-12.3e| %G %E\n", x, x, nz(x), x, x, x, x, nz(x), x);
        printf("   cmp %d %d %d %d %d %d\n", x < y, x <= y, x == y, x != y, x > y, x >= y);
        printf("   bits %llx neg %llx\n", (unsigned long long)bits_of(x), (unsigned long long)bits_of(-x));
        if (fabs(x) < 9e18) printf("   toint %lld %d\n", (long long)x, (int)(x / 1e10));
        if (x >= 0 && x < 1.8e19) printf("   touint %llu\n", (unsigned long long)x);
        printf("   tofloat %.9g %u\n", nz((double)(float)x), fbits_of((float)x));
    }
    for (unsigned i = 0; i < NF; i++) {
        float x = fv[i], y = fv[(i + 2) % NF];
        printf("f%u: %.9g %.9g %.9g %.9g %u\n", i, nz(x + y), nz(x - y), nz(x * y), nz(x / (y == 0 ? 1 : y)), fbits_of(x * y));
        printf("   %d %d %lld %.9g\n", x < y, x == y, fabsf(x) < 9e18f ? (long long)x : 0LL, (double)x);
    }
    static volatile int64_t iv[] = {0, 1, -1, 16777217, INT64_MAX, INT64_MIN, 9007199254740993LL};
    for (unsigned i = 0; i < sizeof iv / sizeof iv[0]; i++) {
        int64_t v = iv[i];
        printf("i%u: %.17g %.9g %.17g %.9g\n", i, (double)v, (double)(float)v, (double)(uint64_t)v, (double)(float)(uint64_t)v);
        printf("    %.17g %.9g\n", (double)(uint32_t)v, (double)(float)(int32_t)v);
    }
    /* NaN compares */
    volatile double n = nan;
    printf("nan %d %d %d %d %d %d %d\n", n < 1, n > 1, n == n, n != n, n <= n, n >= 0, !(n < 1));
    printf("inf %f %e %g\n", inf, -inf, inf);
    printf("math %.17g %.17g %.17g %.17g %.17g %.17g\n", sqrt(dv[5]), floor(dv[3]), ceil(dv[3]), trunc(dv[10]), round(dv[9]), round(dv[10]));
    printf("fabs %g copysign %g fmin %g fmax %g\n", fabs(dv[3]), copysign(3.0, dv[1]), fmin(dv[2], dv[3]), fmax(dv[2], dv[3]));
    return 0;
}
