// expect-sc: pass
// why: deferred cancellation: the worker acts on the cancel request at pthread_testcancel and its joiner gets PTHREAD_CANCELED.
#include <assert.h>
#include <pthread.h>

volatile int stop;

static void *worker(void *arg) {
    (void)arg;
    while (!stop)
        pthread_testcancel();
    return 0;
}

int main(void) {
    pthread_t t;
    void *r;
    pthread_create(&t, 0, worker, 0);
    pthread_cancel(t);
    pthread_join(t, &r);
    assert(r == PTHREAD_CANCELED);
    return 0;
}
