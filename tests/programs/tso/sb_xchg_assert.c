// expect-sc: pass
// why: store buffering where both stores are locked xchg (__atomic_exchange_n): at least one load sees 1 under TSO too.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

volatile int x, y;
int r0, r1;

static void *left(void *arg) {
    (void)arg;
    __atomic_exchange_n(&x, 1, __ATOMIC_RELAXED);
    r0 = y;
    return NULL;
}

static void *right(void *arg) {
    (void)arg;
    __atomic_exchange_n(&y, 1, __ATOMIC_RELAXED);
    r1 = x;
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
