// expect-sc: inconclusive
// why: benchmark: two threads each increment their own counter forever; the state space is infinite, so only a limit stops it (memory use per stored state).
#include <pthread.h>
#include <stddef.h>

volatile unsigned long counter[2];

static void *work(void *arg) {
    int me = (int)(long)arg;
    for (;;)
        counter[me]++;
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
