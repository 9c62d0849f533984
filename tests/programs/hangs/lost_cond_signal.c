// expect-sc: fail non-terminating
// error-contains: can never end
// why: a lost condition signal: main signals before the waiter waits, and the waiter has no predicate loop; once it chose to wait (no spurious wake-up) it stays blocked while main spins on `done`, which only the waiter sets: no way to the end, and not a deadlock (main still runs).
#include <pthread.h>
#include <stdatomic.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
atomic_int done;

static void *waiter(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    pthread_cond_wait(&c, &m);
    pthread_mutex_unlock(&m);
    atomic_store(&done, 1);
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, waiter, 0);
    pthread_mutex_lock(&m);
    pthread_cond_signal(&c);
    pthread_mutex_unlock(&m);
    while (!atomic_load(&done)) {
    }
    pthread_join(t, 0);
    return 0;
}
