// expect-sc: pass
// expect-tso: pass
// why: benchmark: the filter lock (Peterson's algorithm generalised to N threads), fenced for TSO; four threads enter once each.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

#ifndef THREADS
#define THREADS 4
#endif

volatile int level[THREADS];
volatile int victim[THREADS];
int inside;

static void *work(void *arg) {
    int me = (int)(long)arg;
    for (int l = 1; l < THREADS; l++) {
        level[me] = l;
        victim[l] = me;
        __sync_synchronize();
        for (;;) {
            int conflict = 0;
            for (int k = 0; k < THREADS; k++)
                if (k != me && level[k] >= l)
                    conflict = 1;
            if (!conflict || victim[l] != me)
                break;
        }
    }
    assert(__sync_add_and_fetch(&inside, 1) == 1);
    __sync_sub_and_fetch(&inside, 1);
    level[me] = 0;
    return NULL;
}

int main(void) {
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, work, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    return 0;
}
