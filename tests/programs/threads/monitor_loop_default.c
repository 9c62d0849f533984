// expect-sc: fail non-terminating
// why: control for monitor_loop_allowed.c: by default a loop no other thread can end is a non-terminating failure, even when it only reads shared memory.
#include <assert.h>
#include <pthread.h>

volatile int x;

static void *worker(void *arg) {
    (void)arg;
    x = 1;
    return 0;
}

int main(void) {
    pthread_t w;
    pthread_create(&w, 0, worker, 0);
    for (;;)
        assert(x <= 1);
}
