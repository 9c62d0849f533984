// Inline assembly the checker does not model (rdtsc).
#include <stdio.h>
int main(void) {
    unsigned lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    printf("%u\n", lo ^ hi);
    return 0;
}
