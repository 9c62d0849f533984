// expect-sc: pass
// expect-tso: fail assertion
// why: _mm_sfence and _mm_lfence do not drain the store buffer: both loads can still read 0 under TSO.
#include <assert.h>
#include <pthread.h>
#include <emmintrin.h>
#include <stddef.h>

volatile int x, y;
int r0, r1;

static void *left(void *arg) {
    (void)arg;
    x = 1;
    _mm_sfence();
    _mm_lfence();
    r0 = y;
    return NULL;
}

static void *right(void *arg) {
    (void)arg;
    y = 1;
    _mm_sfence();
    _mm_lfence();
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
