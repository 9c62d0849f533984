// Mixed-size test (not from the paper; same x86-TSO machine, byte-range store
// buffer entries): two 4-byte stores against a 2-byte store and an 8-byte load.
// Thread 0 stores d[0]=1 then d[1]=2 (FIFO: d[1] never visible without d[0]).
// Thread 1 stores the 2-byte w[1]=3 (bytes 2..3, inside d[0]), then loads all
// 8 bytes: bytes 2..3 may come from its own buffer, the rest from memory.
// Printed: the load split at store boundaries (bytes 0-1, 2-3, 4-7) and the
// final memory split the same way. r_lo16=0 r_mid16=3 with final m_mid16=3
// needs thread 1's load to run before its own store is flushed: TSO only.
// Expected outcomes: mixed_st32x2_ld64.expect
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

union words {
    uint64_t q;
    uint32_t d[2];
    uint16_t w[4];
};

volatile union words m;
uint64_t r;

static void *thread0(void *arg) {
    (void)arg;
    m.d[0] = 1;
    m.d[1] = 2;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    m.w[1] = 3;
    r = m.q;
    return NULL;
}

int main(void) {
    pthread_t t0, t1;
    pthread_create(&t0, NULL, thread0, NULL);
    pthread_create(&t1, NULL, thread1, NULL);
    pthread_join(t0, NULL);
    pthread_join(t1, NULL);
    printf("r_lo16=%d r_mid16=%d r_hi32=%d m_lo16=%d m_mid16=%d m_hi32=%d\n",
           (int)(r & 0xffff), (int)((r >> 16) & 0xffff), (int)(r >> 32),
           (int)m.w[0], (int)m.w[1], (int)m.d[1]);
    return 0;
}
