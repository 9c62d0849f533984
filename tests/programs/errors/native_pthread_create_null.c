// expect-sc: fail null-dereference
// why: pthread_create writes the new thread's id through its first argument, even NULL.
#include <pthread.h>

static void *worker(void *arg) { return arg; }

int main(void) {
    pthread_t *volatile out = 0;
    pthread_create(out, 0, worker, 0);
    return 0;
}
