// expect-sc: pass
// why: a defined store after an undefined one makes the location defined, also when
// why: both are still in the store buffer under TSO.
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
    shared = 3;
    if (*(volatile int *)&shared == 3)
        puts("three");
    pthread_join(t, NULL);
    return 0;
}
