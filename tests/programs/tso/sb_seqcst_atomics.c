// expect-sc: pass
// why: C11 seq_cst atomic stores/loads (lowered on x86 as xchg or mov+mfence) forbid the SB outcome under TSO too.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

atomic_int x, y;
int r0, r1;

static void *left(void *arg) {
    (void)arg;
    atomic_store(&x, 1);
    r0 = atomic_load(&y);
    return NULL;
}

static void *right(void *arg) {
    (void)arg;
    atomic_store(&y, 1);
    r1 = atomic_load(&x);
    return NULL;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, NULL, left, NULL);
    pthread_create(&b, NULL, right, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    assert(r0 == 1 || r1 == 1);
    return 0;
}
