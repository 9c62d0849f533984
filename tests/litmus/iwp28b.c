// Intel iwp2.8.b ("Stores are not reordered with locks"): a locked xchg followed
// by a store; the reader must not see the store without the xchg: r1=1 r2=0 forbidden.
// Expected outcomes: iwp28b.expect (every printable combination, SC and TSO).
#include <pthread.h>
#include <stdio.h>

volatile int x, y;
int r0, r1, r2;

static void *thread0(void *arg) {
    (void)arg;
    r0 = __atomic_exchange_n(&x, 1, __ATOMIC_SEQ_CST); /* lock xchg */
    y = 1;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    r1 = y;
    r2 = x;
    return NULL;
}

int main(void) {
    pthread_t t[2];
    void *(*body[2])(void *) = {thread0, thread1};
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, body[i], NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("r0=%d r1=%d r2=%d\n", r0, r1, r2);
    return 0;
}
