// Intel iwp2.3.b / iwp2.4 / AMD amd9 (intra-processor forwarding): each thread reads
// its own store early (r0=1 r2=1) and the other location as 0: allowed under TSO.
// Expected outcomes: iwp23b.expect (every printable combination, SC and TSO).
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
