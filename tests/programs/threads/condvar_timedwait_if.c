// expect-sc: fail assertion
// why: a timed wait that returns 0 (not ETIMEDOUT) may still be a spurious wake-up: checking only the return code is a bug.
#include <assert.h>
#include <pthread.h>
#include <time.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
int ready;

static void *setter(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    ready = 1;
    pthread_cond_signal(&c);
    pthread_mutex_unlock(&m);
    return 0;
}

int main(void) {
    pthread_t t;
    struct timespec ts = {0, 0};
    pthread_create(&t, 0, setter, 0);
    pthread_mutex_lock(&m);
    if (!ready && pthread_cond_timedwait(&c, &m, &ts) == 0)
        assert(ready);
    pthread_mutex_unlock(&m);
    pthread_join(t, 0);
    return 0;
}
