#include <stdio.h>
#include <math.h>

int main(void) {
    volatile double zero = 0.0, one = 1.0;
    double nan = zero / zero, inf = one / zero;
    printf("isnan %d %d isinf %d %d %d isfinite %d %d signbit %d %d\n", isnan(nan), isnan(one), isinf(inf), isinf(-inf),
           isinf(one), isfinite(one), isfinite(inf), signbit(-zero) != 0, signbit(one) != 0);
    return 0;
}
