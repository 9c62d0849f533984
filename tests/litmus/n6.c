// n6 of the x86-TSO test set (x86-TSO CACM 2010): r0=1 r1=0 with final x=1 is
// allowed under x86-TSO (store forwarding + late flush), forbidden under SC.
// Expected outcomes: n6.expect (every printable combination, SC and TSO).
#include <pthread.h>
#include <stdio.h>

volatile int x, y;
int r0, r1;

static void *thread0(void *arg) {
    (void)arg;
    x = 1;
    r0 = x;
    r1 = y;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    y = 2;
    x = 2;
    return NULL;
}

int main(void) {
    pthread_t t[2];
    void *(*body[2])(void *) = {thread0, thread1};
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, body[i], NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("r0=%d r1=%d x=%d\n", r0, r1, x);
    return 0;
}
