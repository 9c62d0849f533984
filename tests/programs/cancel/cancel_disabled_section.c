// expect-sc: pass
// why: with cancellation disabled the sleep (a cancellation point) does not act: a cancelled worker always got past it (done == 1); a request that comes late lets it finish (done == 2).
#include <assert.h>
#include <pthread.h>
#include <unistd.h>

int done;

static void *worker(void *arg) {
    (void)arg;
    int old;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    sleep(1);
    done = 1;
    pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
    pthread_testcancel();
    done = 2;
    return 0;
}

int main(void) {
    pthread_t t;
    void *r;
    pthread_create(&t, 0, worker, 0);
    pthread_cancel(t);
    pthread_join(t, &r);
    if (r == PTHREAD_CANCELED)
        assert(done == 1);
    else
        assert(done == 2);
    return 0;
}
