// Mixed-size test (not from the paper; same x86-TSO machine, byte-range store
// buffer entries): a 16-byte compare-exchange (`lock cmpxchg16b`) against two
// 8-byte stores into its halves. Thread 0 stores lo=1 then hi=2 (FIFO: hi=2
// never in memory without lo=1). Thread 1 first stores hi=5 itself, then
// compare-exchanges all 16 bytes from (lo=1, hi=5) to (7, 7): being locked, it
// drains thread 1's own store first, then reads and writes memory atomically.
// Printed: the old value's halves and the final memory's. The exchange succeeds
// only between thread 0's two stores reaching memory, after thread 1's hi=5 did,
// so it never reads lo=0 with hi=2, and a success ends with hi=2 or hi=7.
// Expected outcomes: mixed_cmpxchg16b.expect
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

union pair {
    unsigned __int128 all;
    uint64_t half[2];
};

volatile union pair m __attribute__((aligned(16)));
unsigned __int128 r;

static void *thread0(void *arg) {
    (void)arg;
    m.half[0] = 1;
    m.half[1] = 2;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    m.half[1] = 5;
    r = __sync_val_compare_and_swap(&m.all, (unsigned __int128)5 << 64 | 1,
                                    (unsigned __int128)7 << 64 | 7);
    return NULL;
}

int main(void) {
    pthread_t t0, t1;
    pthread_create(&t0, NULL, thread0, NULL);
    pthread_create(&t1, NULL, thread1, NULL);
    pthread_join(t0, NULL);
    pthread_join(t1, NULL);
    printf("r_lo=%d r_hi=%d m_lo=%d m_hi=%d\n", (int)(uint64_t)r, (int)(uint64_t)(r >> 64),
           (int)m.half[0], (int)m.half[1]);
    return 0;
}
