// expect-sc: pass
// why: a handler popped (with 0) before the cancellation point is no longer registered: cancellation runs only the handler still pushed.
#include <assert.h>
#include <pthread.h>

volatile int stop;
int early, late;

static void bump(void *arg) {
    *(int *)arg += 1;
}

static void *worker(void *arg) {
    (void)arg;
    pthread_cleanup_push(bump, &early);
    pthread_cleanup_pop(0);
    pthread_cleanup_push(bump, &late);
    while (!stop)
        pthread_testcancel();
    pthread_cleanup_pop(0);
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    pthread_cancel(t);
    pthread_join(t, 0);
    assert(early == 0);
    assert(late == 1);
    return 0;
}
