// amd10: SB with mfences, each thread also reading its own location after the
// fence. r1=0 r3=0 forbidden.
// Expected outcomes: amd10.expect (every printable combination, SC and TSO).
#include <pthread.h>
#include <stdio.h>

volatile int x, y;
int r0, r1, r2, r3;

static void *thread0(void *arg) {
    (void)arg;
    x = 1;
    __sync_synchronize(); /* mfence */
    r0 = x;
    r1 = y;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    y = 1;
    __sync_synchronize(); /* mfence */
    r2 = y;
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
