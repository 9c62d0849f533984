// expect-sc: pass
// why: on cancellation the registered cleanup handlers run innermost first, each once; a cancellation point inside a handler (and a second cancel request) does not act again, so the outer handler still runs.
#include <assert.h>
#include <pthread.h>

volatile int stop;
int order[4];
int ran;

static void record(void *arg) {
    pthread_testcancel();
    order[ran++] = (int)(long)arg;
}

static void *worker(void *arg) {
    (void)arg;
    pthread_cleanup_push(record, (void *)1);
    pthread_cleanup_push(record, (void *)2);
    pthread_cleanup_push(record, (void *)3);
    while (!stop)
        pthread_testcancel();
    pthread_cleanup_pop(0);
    pthread_cleanup_pop(0);
    pthread_cleanup_pop(0);
    return 0;
}

int main(void) {
    pthread_t t;
    void *r;
    pthread_create(&t, 0, worker, 0);
    pthread_cancel(t);
    pthread_cancel(t);
    pthread_join(t, &r);
    assert(r == PTHREAD_CANCELED);
    assert(ran == 3);
    assert(order[0] == 3 && order[1] == 2 && order[2] == 1);
    return 0;
}
