// expect-sc: fail assertion
// why: returning from main is a scheduling point of its own: the thread can run after `x = 1` and before the process exits.
#include <assert.h>
#include <pthread.h>

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
    return 0;
}
