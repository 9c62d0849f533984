// expect-sc: pass
// expect-tso: fail assertion
// why: a library store (strcpy, memset) goes into the store buffer like any other store, so a later load can pass it.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

char x[8], y[8];
int r0, r1;

static void *left(void *arg) {
    (void)arg;
    strcpy(x, "a");
    r0 = y[0];
    return NULL;
}

static void *right(void *arg) {
    (void)arg;
    memset(y, 'b', 1);
    r1 = x[0];
    return NULL;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, NULL, left, NULL);
    pthread_create(&b, NULL, right, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    assert(r0 || r1);
    return 0;
}
