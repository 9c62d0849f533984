// n4 of the x86-TSO test set: r0=2 r1=1 r2=1 r3=2 is forbidden.
// Expected outcomes: n4.expect (every printable combination, SC and TSO).
#include <pthread.h>
#include <stdio.h>

volatile int x;
int r0, r1, r2, r3;

static void *thread0(void *arg) {
    (void)arg;
    r0 = x;
    x = 1;
    r1 = x;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    r2 = x;
    x = 2;
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
