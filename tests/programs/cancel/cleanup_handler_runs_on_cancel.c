// expect-sc: pass
// why: a thread cancelled at pthread_testcancel (two calls below the function that pushed the handler) runs its cleanup handler before it ends: the joiner sees PTHREAD_CANCELED and the handler's store.
#include <assert.h>
#include <pthread.h>

volatile int stop;
int cleaned;

static void mark_cleaned(void *arg) {
    *(int *)arg += 1;
}

__attribute__((noinline)) static void poll_for_cancel(void) {
    while (!stop)
        pthread_testcancel();
}

static void *worker(void *arg) {
    (void)arg;
    pthread_cleanup_push(mark_cleaned, &cleaned);
    poll_for_cancel();
    pthread_cleanup_pop(0);
    return 0;
}

int main(void) {
    pthread_t t;
    void *r;
    pthread_create(&t, 0, worker, 0);
    pthread_cancel(t);
    pthread_join(t, &r);
    assert(r == PTHREAD_CANCELED);
    assert(cleaned == 1);
    return 0;
}
