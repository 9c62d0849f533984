// expect-sc: pass
// why: pthread_mutex_timedlock takes a free mutex at once, and against a holder that unlocks later it either takes the mutex (and then excludes the holder) or times out with ETIMEDOUT; C11 mtx_timedlock reports the same as thrd_success/thrd_timedout.
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <threads.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static mtx_t c11;
static int inside;

static void *holder(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    inside++;
    assert(inside == 1);
    inside--;
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void) {
    struct timespec ts = {0, 0};
    assert(pthread_mutex_timedlock(&m, &ts) == 0);
    pthread_mutex_unlock(&m);
    pthread_t t;
    pthread_create(&t, NULL, holder, NULL);
    int r = pthread_mutex_timedlock(&m, &ts);
    if (r == 0) {
        inside++;
        assert(inside == 1);
        inside--;
        pthread_mutex_unlock(&m);
    } else {
        assert(r == ETIMEDOUT);
    }
    pthread_join(t, NULL);
    mtx_init(&c11, mtx_timed);
    assert(mtx_timedlock(&c11, &ts) == thrd_success);
    assert(mtx_timedlock(&c11, &ts) == thrd_timedout);
    mtx_unlock(&c11);
    return 0;
}
