// Mixed-size, unaligned test (not from the paper; same x86-TSO machine,
// byte-range store buffer entries). An 8-byte block viewed as bytes 0..7:
// thread 0 stores 4 bytes at offset 2 (unaligned, via a packed struct:
// 16-bit halves 1 and 1), then loads the aligned 4 bytes at offset 0.
// Thread 1 stores 4 bytes at offset 0 (16-bit halves 2 and 2), then loads the
// unaligned 4 bytes at offset 2. Each load mixes bytes of its own buffered
// store with bytes from memory. Values are printed as 16-bit halves, split
// where the stores begin and end, plus the final halves h0..h2 (h3 is never
// written). E.g. r1_hi=0 with final h1=2 needs store buffering: TSO only.
// Expected outcomes: mixed_unaligned_overlap.expect
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

struct __attribute__((packed)) at2 {
    uint16_t head;
    uint32_t mid; /* bytes 2..5: unaligned */
    uint16_t tail;
};

union block {
    uint64_t q;
    uint32_t d[2];
    uint16_t h[4];
    struct at2 s;
};

volatile union block u;
uint32_t r0, r1;

static void *thread0(void *arg) {
    (void)arg;
    u.s.mid = 0x00010001u;
    r0 = u.d[0];
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    u.d[0] = 0x00020002u;
    r1 = u.s.mid;
    return NULL;
}

int main(void) {
    pthread_t t0, t1;
    pthread_create(&t0, NULL, thread0, NULL);
    pthread_create(&t1, NULL, thread1, NULL);
    pthread_join(t0, NULL);
    pthread_join(t1, NULL);
    printf("r0_lo=%d r0_hi=%d r1_lo=%d r1_hi=%d h0=%d h1=%d h2=%d\n",
           (int)(r0 & 0xffff), (int)(r0 >> 16), (int)(r1 & 0xffff), (int)(r1 >> 16),
           (int)u.h[0], (int)u.h[1], (int)u.h[2]);
    return 0;
}
