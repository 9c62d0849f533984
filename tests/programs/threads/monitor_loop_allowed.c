// expect-sc: pass
// check-args: --allow-nontermination
// why: SV-COMP style monitor: main checks an invariant forever; with --allow-nontermination the loop no other thread can end stops main instead of failing.
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
