// expect-sc: pass
// why: after pthread_barrier_wait every thread sees every other thread's pre-barrier write; exactly one gets PTHREAD_BARRIER_SERIAL_THREAD.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

#define THREADS 3

pthread_barrier_t barrier;
int slot[THREADS];
volatile int serial_count;

static void *work(void *arg) {
    int me = (int)(long)arg;
    slot[me] = me + 1;
    int rc = pthread_barrier_wait(&barrier);
    if (rc == PTHREAD_BARRIER_SERIAL_THREAD)
        __sync_fetch_and_add(&serial_count, 1);
    else
        assert(rc == 0);
    for (int i = 0; i < THREADS; i++)
        assert(slot[i] == i + 1);
    return NULL;
}

int main(void) {
    pthread_t t[THREADS];
    pthread_barrier_init(&barrier, NULL, THREADS);
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, work, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    assert(serial_count == 1);
    pthread_barrier_destroy(&barrier);
    return 0;
}
