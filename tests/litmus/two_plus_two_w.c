// 2+2W: each thread writes both locations in opposite orders.
// Final x=1 y=1 would need a store-store reordering: forbidden under x86-TSO.
// Expected outcomes: two_plus_two_w.expect (every printable combination, SC and TSO).
#include <pthread.h>
#include <stdio.h>

volatile int x, y;

static void *thread0(void *arg) {
    (void)arg;
    x = 1;
    y = 2;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    y = 1;
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
    printf("x=%d y=%d\n", x, y);
    return 0;
}
