// IRIW with locked writers: Intel iwp2.7 ("Locked instructions have a total
// order"), amd7 in the herd x86 suite. r0=1 r1=0 r2=1 r3=0 forbidden.
// Expected outcomes: iriw_xchg.expect (every printable combination, SC and TSO).
#include <pthread.h>
#include <stdio.h>

volatile int x, y;
int a0, a1, r0, r1, r2, r3;

static void *thread0(void *arg) {
    (void)arg;
    a0 = __atomic_exchange_n(&x, 1, __ATOMIC_SEQ_CST); /* lock xchg */
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    a1 = __atomic_exchange_n(&y, 1, __ATOMIC_SEQ_CST); /* lock xchg */
    return NULL;
}

static void *thread2(void *arg) {
    (void)arg;
    r0 = x;
    r1 = y;
    return NULL;
}

static void *thread3(void *arg) {
    (void)arg;
    r2 = y;
    r3 = x;
    return NULL;
}

int main(void) {
    pthread_t t[4];
    void *(*body[4])(void *) = {thread0, thread1, thread2, thread3};
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, body[i], NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    printf("r0=%d r1=%d r2=%d r3=%d\n", r0, r1, r2, r3);
    return 0;
}
