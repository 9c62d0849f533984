// expect-sc: pass
// expect-tso: fail assertion
// why: C11 relaxed atomic stores/loads are plain x86 movs: the SB outcome (both read 0) appears under TSO.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

int x, y;
int r0, r1;

static void *left(void *arg) {
    (void)arg;
    __atomic_store_n(&x, 1, __ATOMIC_RELAXED);
    r0 = __atomic_load_n(&y, __ATOMIC_RELAXED);
    return NULL;
}

static void *right(void *arg) {
    (void)arg;
    __atomic_store_n(&y, 1, __ATOMIC_RELAXED);
    r1 = __atomic_load_n(&x, __ATOMIC_RELAXED);
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
