// SB+lock-xchgs: Intel iwp2.8.a ("Loads are not reordered with locks",
// AMD amd7 family). Both stores are locked xchg, so r1=0 r3=0 is forbidden.
// Expected outcomes: sb_xchg_both.expect (every printable combination, SC and TSO).
#include <pthread.h>
#include <stdio.h>

volatile int x, y;
int r0, r1, r2, r3;

static void *thread0(void *arg) {
    (void)arg;
    r0 = __atomic_exchange_n(&x, 1, __ATOMIC_SEQ_CST); /* lock xchg */
    r1 = y;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    r2 = __atomic_exchange_n(&y, 1, __ATOMIC_SEQ_CST); /* lock xchg */
    r3 = x;
    return NULL;
}

int main(void) {
    pthread_t t[2];
    void *(*body[2])(void *) = {thread0, thread1};
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, body[i], NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("r0=%d r1=%d r2=%d r3=%d\n", r0, r1, r2, r3);
    return 0;
}
