// expect-sc: fail assertion
// why: control for verifier_atomic_function.c: the same lock in a function without the __VERIFIER_atomic_ prefix is interleaved, so both threads can take it.
#include <assert.h>
#include <pthread.h>

extern void __VERIFIER_assume(int);

int lock;
int inside;

void acquire(int *m) {
    __VERIFIER_assume(*m == 0);
    *m = 1;
}

void release(int *m) {
    __VERIFIER_assume(*m == 1);
    *m = 0;
}

static void *worker(void *arg) {
    (void)arg;
    acquire(&lock);
    inside++;
    assert(inside == 1);
    inside--;
    release(&lock);
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, worker, 0);
    pthread_create(&b, 0, worker, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
}
