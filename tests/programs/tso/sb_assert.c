// expect-sc: pass
// expect-tso: fail assertion
// why: store buffering: under SC one thread must see the other's store, under x86-TSO both loads can read 0.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

volatile int x, y;
int r0, r1;

static void *left(void *arg) {
    (void)arg;
    x = 1;
    r0 = y;
    return NULL;
}

static void *right(void *arg) {
    (void)arg;
    y = 1;
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
