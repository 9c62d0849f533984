// SB with a 16-byte read-modify-write (`atomicrmw` on `unsigned __int128`: an
// exchange in thread 0, a fetch-add in thread 1, each on a location of its own)
// between the store and the load: a locked instruction drains the store buffer, so
// r0=0 r1=0 is forbidden under x86-TSO, as with `sb_cmpxchg16b`; the values read
// back show the 16 bytes were read and written whole.
// Expected outcomes: sb_rmw16b.expect (every printable combination, SC and TSO).
#include <pthread.h>
#include <stdio.h>

volatile int x, y;
volatile unsigned __int128 lock0 = (unsigned __int128)1 << 64 | 1, lock1 = (unsigned __int128)1 << 64;
int r0, r1, ok0, ok1;

static void *thread0(void *arg) {
    (void)arg;
    x = 1;
    ok0 = __atomic_exchange_n(&lock0, (unsigned __int128)2 << 64, __ATOMIC_SEQ_CST) == ((unsigned __int128)1 << 64 | 1);
    r0 = y;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    y = 1;
    ok1 = __atomic_fetch_add(&lock1, ~(unsigned __int128)0, __ATOMIC_SEQ_CST) == (unsigned __int128)1 << 64;
    r1 = x;
    return NULL;
}

int main(void) {
    pthread_t t[2];
    void *(*body[2])(void *) = {thread0, thread1};
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, body[i], NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    int whole = ok0 && ok1 && lock0 == (unsigned __int128)2 << 64 && lock1 == (((unsigned __int128)1 << 64) - 1);
    printf("r0=%d r1=%d whole=%d\n", r0, r1, whole);
    return 0;
}
