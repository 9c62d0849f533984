// expect-sc: pass
// why: without cancellation, pthread_cleanup_pop(1) runs the handler and pthread_cleanup_pop(0) does not; popped handlers stay popped when the thread later returns.
#include <assert.h>
#include <pthread.h>

static void bump(void *arg) {
    *(int *)arg += 1;
}

static void *worker(void *arg) {
    int *counts = arg;
    pthread_cleanup_push(bump, &counts[0]);
    pthread_cleanup_pop(1);
    pthread_cleanup_push(bump, &counts[1]);
    pthread_cleanup_pop(0);
    return 0;
}

int main(void) {
    int counts[2] = {0, 0};
    pthread_t t;
    void *r;
    pthread_create(&t, 0, worker, counts);
    pthread_join(t, &r);
    assert(r == 0);
    assert(counts[0] == 1);
    assert(counts[1] == 0);
    return 0;
}
