// n8 of the x86-TSO test set (Owens/Sarkar/Sewell): SB with a locked xchg on one
// thread only. The other thread's plain store can still be buffered: r1=0 r2=0 allowed.
// Expected outcomes: n8.expect (every printable combination, SC and TSO).
#include <pthread.h>
#include <stdio.h>

volatile int x, y;
int r0, r1, r2;

static void *thread0(void *arg) {
    (void)arg;
    r0 = __atomic_exchange_n(&x, 1, __ATOMIC_SEQ_CST); /* lock xchg */
    r1 = y;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    y = 1;
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
