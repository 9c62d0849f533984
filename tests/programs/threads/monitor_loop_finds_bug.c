// expect-sc: fail assertion
// check-args: --allow-nontermination
// why: --allow-nontermination stops only the endless loop: the monitor still sees the worker's bad value while the worker runs.
#include <assert.h>
#include <pthread.h>

volatile int x;

static void *worker(void *arg) {
    (void)arg;
    x = 1;
    x = 2;
    x = 0;
    return 0;
}

int main(void) {
    pthread_t w;
    pthread_create(&w, 0, worker, 0);
    for (;;)
        assert(x <= 1);
}
