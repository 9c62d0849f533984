#include <stdio.h>
#include <stdint.h>
#include <limits.h>

static volatile int64_t vals[] = {0, 1, -1, 2, -2, 3, 7, -7, 100, -100, 127, -128, 255, 32767, -32768, 65535,
    INT32_MAX, INT32_MIN, UINT32_MAX, INT64_MAX, INT64_MIN, 0x123456789abcdefLL, -0x5555555555555555LL};
#define N (sizeof vals / sizeof vals[0])

#define OPS(T, U, FMT, CAST) do { \
    for (unsigned i = 0; i < N; i++) for (unsigned j = 0; j < N; j++) { \
        T a = (T)vals[i], b = (T)vals[j]; unsigned s = (unsigned)(vals[j] & (sizeof(T) * 8 - 1)); \
        h = h * 31 + (CAST)(T)((U)a + (U)b); h = h * 31 + (CAST)(T)((U)a - (U)b); h = h * 31 + (CAST)(T)(1u * (U)a * (U)b); \
        h = h * 31 + (CAST)(T)(a & b); h = h * 31 + (CAST)(T)(a | b); h = h * 31 + (CAST)(T)(a ^ b); \
        h = h * 31 + (CAST)(T)((1u * (U)a) << s); h = h * 31 + (CAST)(T)(a >> s); \
        h = h * 31 + (a < b) + 2 * (a <= b) + 4 * (a == b); \
        if (b != 0 && !((T)-1 < 0 && b == (T)-1)) { h = h * 31 + (CAST)(T)(a / b); h = h * 31 + (CAST)(T)(a % b); } \
    } \
    printf("%-10s " FMT "\n", #T, h); h = 0; } while (0)

int main(void) {
    unsigned long long h = 0;
    OPS(int8_t, uint8_t, "%llx", unsigned long long);
    OPS(uint8_t, uint8_t, "%llx", unsigned long long);
    OPS(int16_t, uint16_t, "%llx", unsigned long long);
    OPS(uint16_t, uint16_t, "%llx", unsigned long long);
    OPS(int32_t, uint32_t, "%llx", unsigned long long);
    OPS(uint32_t, uint32_t, "%llx", unsigned long long);
    OPS(int64_t, uint64_t, "%llx", unsigned long long);
    OPS(uint64_t, uint64_t, "%llx", unsigned long long);
    OPS(__int128, unsigned __int128, "%llx", unsigned long long);
    OPS(unsigned __int128, unsigned __int128, "%llx", unsigned long long);
    /* 128-bit values beyond 64 bits */
    unsigned __int128 big = ((unsigned __int128)vals[21] << 64) | (uint64_t)vals[22];
    __int128 sbig = -(__int128)big / 3;
    printf("%llx %llx\n", (unsigned long long)(big >> 64), (unsigned long long)big);
    printf("%llx %llx\n", (unsigned long long)((unsigned __int128)sbig >> 64), (unsigned long long)sbig);
    printf("%llx %llx\n", (unsigned long long)(big % 1000000007), (unsigned long long)(big / (uint64_t)vals[16] >> 3));
    printf("%d\n", (int)(sbig >> 100));
    return 0;
}
