// expect-sc: fail uninitialized
// why: an undefined value stored to shared memory stays undefined when a load reads it
// why: back, under TSO from the store buffer (the buffered store carries its mask).
#include <pthread.h>
#include <stdio.h>

int shared;
int other;

static void *observer(void *arg) {
    (void)arg;
    other = 1;
    return NULL;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, NULL, observer, NULL);
    int x;
    volatile int *p = &x;
    shared = *p;
    if (*(volatile int *)&shared == 3)
        puts("three");
    pthread_join(t, NULL);
    return 0;
}
