// expect-sc: fail deadlock
// why: a thread cancelled in pthread_cond_wait retakes the mutex before it ends; without a cleanup handler it ends holding it, and main's lock waits forever.
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
int ready;

static void *waiter(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    while (!ready)
        pthread_cond_wait(&c, &m);
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
