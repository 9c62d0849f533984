// expect-sc: fail uninitialized
// why: a thread returns a value it never initialised; pthread_join hands the undefined bits to the joiner, which branches on them.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *worker(void *arg) {
    (void)arg;
    long *v = malloc(sizeof *v);
    volatile long *p = v;
    return (void *)*p;
}

int main(void) {
    pthread_t t;
    void *r;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, &r);
    if ((long)r > 0)
        puts("positive");
    return 0;
}
