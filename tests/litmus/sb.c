// SB (store buffering): Intel white paper iwp2.3.a / AMD amd4;
// x86-TSO CACM 2010 Sect. 1. Loads may pass older stores to other locations.
// Expected outcomes: sb.expect (every printable combination, SC and TSO).
#include <pthread.h>
#include <stdio.h>

volatile int x, y;
int r0, r1;

static void *thread0(void *arg) {
    (void)arg;
    x = 1;
    r0 = y;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    y = 1;
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
