// expect-sc: pass
// why: a thread blocked in pthread_join (a cancellation point) is woken by a cancel request and ends with PTHREAD_CANCELED instead of waiting forever.
#include <assert.h>
#include <pthread.h>

pthread_t sleeper_id;
volatile int stop;

static void *sleeper(void *arg) {
    (void)arg;
    while (!stop)
        pthread_testcancel();
    return 0;
}

static void *joiner(void *arg) {
    (void)arg;
    pthread_join(sleeper_id, 0);
    return 0;
}

int main(void) {
    pthread_t j;
    void *r;
    pthread_create(&sleeper_id, 0, sleeper, 0);
    pthread_create(&j, 0, joiner, 0);
    pthread_cancel(j);
    pthread_join(j, &r);
    assert(r == PTHREAD_CANCELED);
    pthread_cancel(sleeper_id);
    return 0;
}
