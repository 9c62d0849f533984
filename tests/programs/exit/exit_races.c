// expect-sc: fail assertion
// why: exit() ends the process, but another thread can run between the last store and the exit.
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

int x, y;

static void *t(void *a) {
    (void)a;
    assert(x == 0 || y == 1);
    return 0;
}

int main(void) {
    pthread_t tid;
    pthread_create(&tid, 0, t, 0);
    x = 1;
    exit(0);
}
