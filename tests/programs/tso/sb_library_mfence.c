// expect-sc: pass
// expect-tso: pass
// why: with a full fence between the store and the string function, one of the two loads sees the other thread's store.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

char x[8], y[8];
int r0, r1;

static void *left(void *arg) {
    (void)arg;
    x[0] = 'a';
    __sync_synchronize();
    r0 = strlen(y) != 0;
    return NULL;
}

static void *right(void *arg) {
    (void)arg;
    y[0] = 'b';
    __sync_synchronize();
    r1 = strlen(x) != 0;
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
