// n1 of the x86-TSO test set (Owens/Sarkar/Sewell, TPHOLs 2009):
// r0=0 r1=1 r2=2 is allowed under x86-TSO, forbidden under SC.
// Expected outcomes: n1.expect (every printable combination, SC and TSO).
#include <pthread.h>
#include <stdio.h>

volatile int x, y;
int r0, r1, r2;

static void *thread0(void *arg) {
    (void)arg;
    x = 2;
    r0 = y;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    y = 1;
    x = 1;
    return NULL;
}

static void *thread2(void *arg) {
    (void)arg;
    r1 = x;
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
