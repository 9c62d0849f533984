// expect-sc: pass
// why: a cleanup handler that calls library functions (unlock, free) runs once, to its end, when its thread is cancelled: natives a callback calls do not disturb the progress of the library call that ran it.
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int runs;

static void cleanup(void *p) {
    runs++;
    free(p);
    pthread_mutex_unlock(&m);
}

static void *worker(void *arg) {
    (void)arg;
    void *p = malloc(16);
    pthread_mutex_lock(&m);
    pthread_cleanup_push(cleanup, p);
    for (;;)
        pthread_testcancel();
    pthread_cleanup_pop(1);
    return NULL;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_cancel(t);
    void *r;
    pthread_join(t, &r);
    assert(r == PTHREAD_CANCELED);
    pthread_mutex_lock(&m);
    assert(runs == 1);
    pthread_mutex_unlock(&m);
    return 0;
}
