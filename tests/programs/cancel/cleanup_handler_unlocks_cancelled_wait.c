// expect-sc: pass
// why: the usual pattern: a thread cancelled in pthread_cond_wait retakes the mutex, and its cleanup handler unlocks it, so main can lock it after the join.
#include <assert.h>
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
int ready;

static void unlock_mutex(void *arg) {
    pthread_mutex_unlock(arg);
}

static void *waiter(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    pthread_cleanup_push(unlock_mutex, &m);
    while (!ready)
        pthread_cond_wait(&c, &m);
    pthread_cleanup_pop(1);
    return 0;
}

int main(void) {
    pthread_t t;
    void *r;
    pthread_create(&t, 0, waiter, 0);
    pthread_cancel(t);
    pthread_join(t, &r);
    assert(r == PTHREAD_CANCELED);
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    return 0;
}
