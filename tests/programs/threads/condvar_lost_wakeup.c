// expect-sc: fail deadlock
// why: the waiter tests the flag without holding the mutex and then waits; a signal sent in between is lost and it blocks forever.
#include <pthread.h>
#include <stddef.h>

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
volatile int ready;

static void *waiter(void *arg) {
    (void)arg;
    if (!ready) { /* BUG: checked outside the mutex */
        pthread_mutex_lock(&lock);
        pthread_cond_wait(&cv, &lock);
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

static void *notifier(void *arg) {
    (void)arg;
    pthread_mutex_lock(&lock);
    ready = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void) {
    pthread_t w, n;
    pthread_create(&w, NULL, waiter, NULL);
    pthread_create(&n, NULL, notifier, NULL);
    pthread_join(w, NULL);
    pthread_join(n, NULL);
    return 0;
}
