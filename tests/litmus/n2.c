// n2 of the x86-TSO test set (herd x86 suite shape). Its named outcome r0=1 r1=2 r2=1
// r3=0 is reachable even under SC (x=1, x=2, z=1 reach memory before y=1).
// Expected outcomes: n2.expect (every printable combination, SC and TSO).
#include <pthread.h>
#include <stdio.h>

volatile int x, y, z;
int r0, r1, r2, r3;

static void *thread0(void *arg) {
    (void)arg;
    x = 1;
    y = 1;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    x = 2;
    z = 1;
    return NULL;
}

static void *thread2(void *arg) {
    (void)arg;
    r0 = x;
    r1 = x;
    return NULL;
}

static void *thread3(void *arg) {
    (void)arg;
    r2 = z;
    r3 = y;
    return NULL;
}

int main(void) {
    pthread_t t[4];
    void *(*body[4])(void *) = {thread0, thread1, thread2, thread3};
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, body[i], NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    printf("r0=%d r1=%d r2=%d r3=%d\n", r0, r1, r2, r3);
    return 0;
}
