// x86_fp80 arithmetic (long double), which the checker does not model.
#include <stdio.h>
int main(void) {
    volatile long double a = 1.5L, b = 2.25L;
    long double c = a * b;
    printf("%d\n", (int)c);
    return 0;
}
