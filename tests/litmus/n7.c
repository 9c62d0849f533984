// n7 of the x86-TSO test set: r0=1 r1=0 r2=1 r3=0 is allowed under x86-TSO.
// Expected outcomes: n7.expect (every printable combination, SC and TSO).
#include <pthread.h>
#include <stdio.h>

volatile int x, y;
int r0, r1, r2, r3;

static void *thread0(void *arg) {
    (void)arg;
    x = 1;
    r0 = x;
    r1 = y;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    y = 1;
    return NULL;
}

static void *thread2(void *arg) {
    (void)arg;
    r2 = y;
    r3 = x;
    return NULL;
}

int main(void) {
    pthread_t t[3];
    void *(*body[3])(void *) = {thread0, thread1, thread2};
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, body[i], NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    printf("r0=%d r1=%d r2=%d r3=%d\n", r0, r1, r2, r3);
    return 0;
}
