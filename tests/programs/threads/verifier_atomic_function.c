// expect-sc: pass
// why: a call to a function named __VERIFIER_atomic_* runs as one atomic step and a failing assume inside it prunes the path, so the SV-COMP lock admits one thread at a time.
#include <assert.h>
#include <pthread.h>

extern void __VERIFIER_assume(int);

int lock;
int inside;

void __VERIFIER_atomic_acquire(int *m) {
    __VERIFIER_assume(*m == 0);
    *m = 1;
}

void __VERIFIER_atomic_release(int *m) {
    __VERIFIER_assume(*m == 1);
    *m = 0;
}

static void *worker(void *arg) {
    (void)arg;
    __VERIFIER_atomic_acquire(&lock);
    inside++;
    assert(inside == 1);
    inside--;
    __VERIFIER_atomic_release(&lock);
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
