// expect-sc: fail assertion
// why: the last thread's pthread_exit ends the process; main (returned through pthread_exit) lets t run; t's store and its own end are separate steps so the checker thread can see x == 1 with y still 0.
#include <assert.h>
#include <pthread.h>

int x, y;

static void *checker(void *a) {
    (void)a;
    assert(x == 0 || y == 1);
    return 0;
}

static void *t(void *a) {
    (void)a;
    x = 1;
    pthread_exit(0);
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, checker, 0);
    pthread_create(&b, 0, t, 0);
    pthread_exit(0);
}
