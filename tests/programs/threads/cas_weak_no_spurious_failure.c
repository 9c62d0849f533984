// expect-sc: pass
// why: a weak compare-exchange is `lock cmpxchg` on x86 and never fails spuriously: with the expected value in place it always succeeds.
#include <assert.h>
#include <pthread.h>

int x;

static void *other(void *arg) {
    (void)arg;
    int expected = 5;
    /* fails (x is not 5) and must leave x alone */
    assert(!__atomic_compare_exchange_n(&x, &expected, 7, 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, other, 0);
    int expected = 0;
    assert(__atomic_compare_exchange_n(&x, &expected, 1, 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    pthread_join(t, 0);
    assert(x == 1);
    return 0;
}
