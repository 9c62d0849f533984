// WRC: Intel iwp2.5 / AMD amd8, x86-TSO CACM 2010 Example 8-6 (stores are
// transitively visible). r0=1 r1=1 r2=0 forbidden.
// Expected outcomes: wrc.expect (every printable combination, SC and TSO).
#include <pthread.h>
#include <stdio.h>

volatile int x, y;
int r0, r1, r2;

static void *thread0(void *arg) {
    (void)arg;
    x = 1;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    r0 = x;
    y = 1;
    return NULL;
}

static void *thread2(void *arg) {
    (void)arg;
    r1 = y;
    r2 = x;
    return NULL;
}

int main(void) {
    pthread_t t[3];
    void *(*body[3])(void *) = {thread0, thread1, thread2};
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, body[i], NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    printf("r0=%d r1=%d r2=%d\n", r0, r1, r2);
    return 0;
}
