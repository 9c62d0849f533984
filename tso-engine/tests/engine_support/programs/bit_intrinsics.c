#include <stdio.h>
#include <stdint.h>

static volatile uint64_t vals[] = {0, 1, 2, 3, 0x80, 0xff, 0x8000, 0xffff, 0x12345678, 0x80000000u, 0xffffffffu,
    0x8000000000000000ull, 0xffffffffffffffffull, 0x0123456789abcdefull, 0xf0f0f0f0f0f0f0f0ull};
#define N (sizeof vals / sizeof vals[0])

int main(void) {
    for (unsigned i = 0; i < N; i++) {
        uint64_t v = vals[i];
        uint8_t b = (uint8_t)v; uint16_t h = (uint16_t)v; uint32_t w = (uint32_t)v;
        printf("%2u pop %d %d %d | ", i, __builtin_popcount(w), __builtin_popcountll(v), __builtin_popcount(h));
        if (w) printf("clz %d ctz %d ", __builtin_clz(w), __builtin_ctz(w));
        if (v) printf("clzll %d ctzll %d ", __builtin_clzll(v), __builtin_ctzll(v));
        if (h) printf("clzs %d ", __builtin_clzs(h));
        printf("| bswap %x %x %llx ", __builtin_bswap16(h), __builtin_bswap32(w), (unsigned long long)__builtin_bswap64(v));
        printf("| rev %x %x %x %llx ", __builtin_bitreverse8(b), __builtin_bitreverse16(h), __builtin_bitreverse32(w),
               (unsigned long long)__builtin_bitreverse64(v));
        for (unsigned s = 0; s < 70; s += 13) {
            printf("rot %x %x %llx %llx ", __builtin_rotateleft32(w, s), __builtin_rotateright32(w, s),
                   (unsigned long long)__builtin_rotateleft64(v, s), (unsigned long long)__builtin_rotateright64(v, s));
            printf("%x %x ", __builtin_rotateleft8(b, s), __builtin_rotateright16(h, s));
        }
        printf("\n");
    }
    return 0;
}
