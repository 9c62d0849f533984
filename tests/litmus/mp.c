// MP (message passing): Intel iwp2.1 / AMD amd1, x86-TSO CACM 2010 Example 8-1.
// Stores are not reordered with other stores: r0=1 r1=0 forbidden.
// Expected outcomes: mp.expect (every printable combination, SC and TSO).
#include <pthread.h>
#include <stdio.h>

volatile int x, y;
int r0, r1;

static void *thread0(void *arg) {
    (void)arg;
    x = 1;
    y = 1;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    r0 = y;
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
