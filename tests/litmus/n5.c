// n5 of the x86-TSO test set: r0=2 r1=1 is forbidden.
// Expected outcomes: n5.expect (every printable combination, SC and TSO).
#include <pthread.h>
#include <stdio.h>

volatile int x;
int r0, r1;

static void *thread0(void *arg) {
    (void)arg;
    x = 1;
    r0 = x;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    x = 2;
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
