// expect-tso: inconclusive
// why: benchmark: two threads bump one shared counter forever; with unbounded store buffers (--sb-bound 0) the buffers grow by one entry per store (cost per state as buffers grow).
#include <pthread.h>
#include <stddef.h>

volatile unsigned long counter;

static void *work(void *arg) {
    (void)arg;
    for (;;)
        counter++;
    return NULL;
}

int main(void) {
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, work, (void *)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return 0;
}
