// expect-sc: fail assertion
// why: after the last atexit handler returns the process exits; the thread can run between the handler's store and that exit.
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

int x, y;

static void handler(void) { x = 1; }

static void *t(void *a) {
    (void)a;
    assert(x == 0 || y == 1);
    return 0;
}

int main(void) {
    pthread_t tid;
    atexit(handler);
    pthread_create(&tid, 0, t, 0);
    return 0;
}
