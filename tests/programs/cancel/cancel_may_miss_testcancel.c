// expect-sc: fail assertion
// why: the cancel request may arrive after the worker passed its last cancellation point, so the worker can return normally: assuming it was cancelled is a bug.
#include <assert.h>
#include <pthread.h>

static void *worker(void *arg) {
    (void)arg;
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
