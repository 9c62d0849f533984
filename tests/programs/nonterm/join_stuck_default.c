// expect-sc: fail non-terminating
// why: without --allow-nontermination, a worker spinning forever on a value it read once is a non-terminating failure, found when its loop closes (and never a deadlock of main joining it).
#include <pthread.h>

volatile int go;

static void *worker(void *arg) {
    (void)arg;
    int seen = go;
    while (!seen) {
    }
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    go = 1;
    pthread_join(t, 0);
    return 0;
}
