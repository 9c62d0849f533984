// SB with a 16-byte compare-exchange (`lock cmpxchg16b`, on a location of its
// own, expected to fail) between the store and the load on both threads: a
// locked instruction drains the store buffer whether or not it writes, so
// r0=0 r1=0 is forbidden under x86-TSO, as with `sb_locked_add`.
// Expected outcomes: sb_cmpxchg16b.expect (every printable combination, SC and TSO).
#include <pthread.h>
#include <stdio.h>

volatile int x, y;
volatile unsigned __int128 lock0, lock1;
int r0, r1;

static void *thread0(void *arg) {
    (void)arg;
    x = 1;
    __sync_val_compare_and_swap(&lock0, 1, 2);
    r0 = y;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    y = 1;
    __sync_val_compare_and_swap(&lock1, 1, 2);
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
    printf("r0=%d r1=%d\n", r0, r1);
    return 0;
}
