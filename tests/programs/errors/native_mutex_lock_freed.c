// expect-sc: fail use-after-free
// why: locking a mutex that lives in a freed block is a use after free, by another thread too.
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t *m;

static void *worker(void *arg) {
    pthread_mutex_lock(m);
    pthread_mutex_unlock(m);
    return arg;
}

int main(void) {
    m = malloc(sizeof *m);
    pthread_mutex_init(m, 0);
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    free(m);
    pthread_join(t, 0);
    return 0;
}
