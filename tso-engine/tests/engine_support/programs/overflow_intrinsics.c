#include <stdio.h>
#include <stdint.h>

static volatile int64_t vals[] = {0, 1, -1, 2, 100, -100, 127, -128, 255, 32767, -32768, 65535,
    INT32_MAX, INT32_MIN, UINT32_MAX, INT64_MAX, INT64_MIN, 0x7fffffffffffLL};
#define N (sizeof vals / sizeof vals[0])

#define OV(T) do { T r; \
    int o1 = __builtin_add_overflow((T)a, (T)b, &r); h = h * 33 + (unsigned long long)r * 2 + o1; \
    int o2 = __builtin_sub_overflow((T)a, (T)b, &r); h = h * 33 + (unsigned long long)r * 2 + o2; \
    int o3 = __builtin_mul_overflow((T)a, (T)b, &r); h = h * 33 + (unsigned long long)r * 2 + o3; \
    ov += o1 + o2 + o3; } while (0)


int main(void) {
    unsigned long long h = 0; int ov = 0;
    for (unsigned i = 0; i < N; i++)
        for (unsigned j = 0; j < N; j++) {
            int64_t a = vals[i], b = vals[j];
            OV(int8_t); OV(uint8_t); OV(int16_t); OV(uint16_t); OV(int32_t); OV(uint32_t); OV(int64_t); OV(uint64_t);
            OV(__int128);
        }
    printf("overflow %llx %d\n", h, ov);
    /* saturating, min/max/abs on scalars and vectors */
    h = 0;
    for (unsigned i = 0; i < N; i++)
        for (unsigned j = 0; j < N; j++) {
            int32_t a = (int32_t)vals[i], b = (int32_t)vals[j];
            uint8_t ua = (uint8_t)vals[i], ub = (uint8_t)vals[j];
            int8_t sa = (int8_t)vals[i], sb = (int8_t)vals[j];
            h = h * 33 + (uint32_t)__builtin_elementwise_add_sat(a, b);
            h = h * 33 + (uint32_t)__builtin_elementwise_sub_sat(a, b);
            h = h * 33 + __builtin_elementwise_add_sat(ua, ub);
            h = h * 33 + __builtin_elementwise_sub_sat(ua, ub);
            h = h * 33 + (uint8_t)__builtin_elementwise_add_sat(sa, sb);
            h = h * 33 + (uint8_t)__builtin_elementwise_sub_sat(sa, sb);
            h = h * 33 + (uint32_t)__builtin_elementwise_min(a, b);
            h = h * 33 + (uint32_t)__builtin_elementwise_max(a, b);
            h = h * 33 + (uint32_t)__builtin_elementwise_min((uint32_t)a, (uint32_t)b);
            h = h * 33 + (uint32_t)__builtin_elementwise_max((uint32_t)a, (uint32_t)b);
            h = h * 33 + (uint8_t)__builtin_elementwise_max(sa, sb);
        }
    printf("sat/minmax %llx\n", h);
    volatile int32_t x = -5, y = INT32_MIN;
    printf("abs %d %d %lld\n", __builtin_elementwise_abs(x), __builtin_elementwise_abs(y), (long long)__builtin_elementwise_abs((int64_t)vals[5]));
    return 0;
}
