// expect-sc: pass
// expect-tso: fail assertion
// why: store buffering where each thread returns what it loaded: ending a thread is a step of its own (it drains the buffer), so both loads can happen while both stores are still buffered.
#include <assert.h>
#include <pthread.h>

int x, y;

static void *t1(void *a) {
    (void)a;
    x = 1;
    return (void *)(long)y;
}

static void *t2(void *a) {
    (void)a;
    y = 1;
    return (void *)(long)x;
}

int main(void) {
    pthread_t a, b;
    void *r1, *r2;
    pthread_create(&a, 0, t1, 0);
    pthread_create(&b, 0, t2, 0);
    pthread_join(a, &r1);
    pthread_join(b, &r2);
    assert(r1 != 0 || r2 != 0);
    return 0;
}
