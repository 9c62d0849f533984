// amd3 (AMD manual, x86-TSO CACM 2010 Example 8-3 discussion): SB with an extra store
// of 2 in the middle of each thread. r0=1 r1=1 is allowed under TSO only.
// Expected outcomes: amd3.expect (every printable combination, SC and TSO).
#include <pthread.h>
#include <stdio.h>

volatile int x, y;
int r0, r1;

static void *thread0(void *arg) {
    (void)arg;
    x = 1;
    x = 2;
    r0 = y;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    y = 1;
    y = 2;
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
