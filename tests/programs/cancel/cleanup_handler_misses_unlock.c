// expect-sc: fail deadlock
// why: the cleanup handler of a thread cancelled in pthread_cond_wait forgets to unlock the mutex the wait retook, so the thread ends holding it and main's lock waits forever.
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
int ready, cleaned;

static void forget_unlock(void *arg) {
    *(int *)arg = 1;
}

static void *waiter(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    pthread_cleanup_push(forget_unlock, &cleaned);
    while (!ready)
        pthread_cond_wait(&c, &m);
    pthread_cleanup_pop(0);
    pthread_mutex_unlock(&m);
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, waiter, 0);
    pthread_cancel(t);
    pthread_join(t, 0);
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    return 0;
}
