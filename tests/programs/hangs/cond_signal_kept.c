// expect-sc: pass
// why: the twin of lost_cond_signal.c: the waiter waits in a predicate loop on `ready`, which main sets under the mutex before signalling, so a signal sent before the wait is not lost.
#include <pthread.h>
#include <stdatomic.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
int ready;
atomic_int done;

static void *waiter(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    while (!ready) {
        pthread_cond_wait(&c, &m);
    }
    pthread_mutex_unlock(&m);
    atomic_store(&done, 1);
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, waiter, 0);
    pthread_mutex_lock(&m);
    ready = 1;
    pthread_cond_signal(&c);
    pthread_mutex_unlock(&m);
    while (!atomic_load(&done)) {
    }
    pthread_join(t, 0);
    return 0;
}
