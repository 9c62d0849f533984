#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

/* Loops the -O2/-O3 vectorisers turn into <4 x i32> code: element-wise arithmetic,
   reductions (add, max, min, abs), compares with select, and narrowing/widening. */
#define N 203
static int32_t a[N], b[N], c[N];
static int16_t s16[N];
static uint8_t u8[N];

__attribute__((noinline)) static void add_arrays(int32_t *restrict d, const int32_t *restrict x, const int32_t *restrict y, int n) {
    for (int i = 0; i < n; i++) d[i] = x[i] * 3 + (y[i] >> 1) - (x[i] ^ y[i]);
}
__attribute__((noinline)) static int32_t max_of(const int32_t *x, int n) {
    int32_t m = INT32_MIN;
    for (int i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
    return m;
}
__attribute__((noinline)) static int32_t min_of(const int32_t *x, int n) {
    int32_t m = INT32_MAX;
    for (int i = 0; i < n; i++) m = x[i] < m ? x[i] : m;
    return m;
}
__attribute__((noinline)) static int64_t sum_abs(const int32_t *x, int n) {
    int64_t s = 0;
    for (int i = 0; i < n; i++) s += abs(x[i]);
    return s;
}
__attribute__((noinline)) static uint32_t count_pos(const int32_t *x, int n) {
    uint32_t k = 0;
    for (int i = 0; i < n; i++) k += x[i] > 0;
    return k;
}
__attribute__((noinline)) static void clamp(int32_t *x, int n, int32_t lo, int32_t hi) {
    for (int i = 0; i < n; i++) x[i] = x[i] < lo ? lo : (x[i] > hi ? hi : x[i]);
}
__attribute__((noinline)) static int32_t widen_sum(const int16_t *x, const uint8_t *y, int n) {
    int32_t s = 0;
    for (int i = 0; i < n; i++) s += x[i] * y[i];
    return s;
}
__attribute__((noinline)) static uint32_t xor_all(const int32_t *x, int n) {
    uint32_t r = 0;
    for (int i = 0; i < n; i++) r ^= (uint32_t)x[i] * 2654435761u;
    return r;
}

int main(void) {
    uint32_t seed = 12345;
    for (int i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        a[i] = (int32_t)(seed >> 3) % 20001 - 10000;
        b[i] = (int32_t)(seed >> 7) % 3001 - 1500;
        s16[i] = (int16_t)(seed >> 11);
        u8[i] = (uint8_t)(seed >> 17);
    }
    add_arrays(c, a, b, N);
    printf("c[0]=%d c[100]=%d c[202]=%d\n", c[0], c[100], c[202]);
    printf("max %d min %d sumabs %lld pos %u\n", max_of(c, N), min_of(c, N), (long long)sum_abs(c, N), count_pos(c, N));
    clamp(c, N, -500, 500);
    printf("clamped max %d min %d sum %lld\n", max_of(c, N), min_of(c, N), (long long)sum_abs(c, N));
    printf("widen %d xor %u\n", widen_sum(s16, u8, N), xor_all(a, N));
    return 0;
}
