// expect-sc: fail deadlock
// why: a thread waits on a condition variable nobody signals while main joins it: every thread is blocked.
#include <pthread.h>
#include <stddef.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
int ready;

static void *waiter(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    while (!ready)
        pthread_cond_wait(&cv, &m);
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, NULL, waiter, NULL);
    pthread_join(t, NULL); /* ready is never set */
    return 0;
}
