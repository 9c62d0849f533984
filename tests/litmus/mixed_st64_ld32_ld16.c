// Mixed-size test (not from the paper; same x86-TSO machine, byte-range store
// buffer entries): one 8-byte store observed by 2-byte and 4-byte loads.
// Thread 0 stores the 8-byte m.q = {d[0]=1, d[1]=2}, reads back the 2-byte
// w[2] (must be forwarded: r0=2), then reads y (SB shape).
// Thread 1 stores y=1, then reads the 4-byte d[1] and the 2-byte w[0].
// The 8-byte store is one atomic buffer entry: r2=2 r3=0 is forbidden.
// r1=0 r2=0 is the SB outcome: allowed under TSO only.
// Expected outcomes: mixed_st64_ld32_ld16.expect
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

union words {
    uint64_t q;
    uint32_t d[2];
    uint16_t w[4];
};

volatile union words m;
volatile int y;
int r0, r1, r2, r3;

static void *thread0(void *arg) {
    (void)arg;
    m.q = 0x0000000200000001ULL;
    r0 = m.w[2];
    r1 = y;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    y = 1;
    r2 = (int)m.d[1];
    r3 = m.w[0];
    return NULL;
}

int main(void) {
    pthread_t t0, t1;
    pthread_create(&t0, NULL, thread0, NULL);
    pthread_create(&t1, NULL, thread1, NULL);
    pthread_join(t0, NULL);
    pthread_join(t1, NULL);
    printf("r0=%d r1=%d r2=%d r3=%d\n", r0, r1, r2, r3);
    return 0;
}
