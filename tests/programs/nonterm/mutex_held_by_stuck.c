// expect-sc: pass
// check-args: --allow-nontermination
// why: a thread that takes a mutex and then spins forever on a value it read once is stuck; main blocked on that mutex waits behind the same non-termination, which --allow-nontermination accepts, not a deadlock.
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
volatile int go;

static void *holder(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    int seen = go;
    while (!seen) {
    }
    pthread_mutex_unlock(&m);
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, holder, 0);
    pthread_mutex_lock(&m);
    go = 1;
    pthread_mutex_unlock(&m);
    pthread_join(t, 0);
    return 0;
}
