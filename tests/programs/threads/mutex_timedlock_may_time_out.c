// expect-sc: fail assertion
// why: a timed lock against a thread that holds the mutex for a while can time out: the assertion that it always succeeds fails.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *holder(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, NULL, holder, NULL);
    struct timespec ts = {0, 0};
    int r = pthread_mutex_timedlock(&m, &ts);
    assert(r == 0);
    pthread_mutex_unlock(&m);
    pthread_join(t, NULL);
    return 0;
}
