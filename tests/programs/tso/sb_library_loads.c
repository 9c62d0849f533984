// expect-sc: pass
// expect-tso: fail assertion
// why: string functions hold no fence on x86: each thread's strlen/memcmp can read the other's buffer still unflushed.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

char x[8], y[8];
int r0, r1;
static const char zero[8];

static void *left(void *arg) {
    (void)arg;
    x[0] = 'a';
    r0 = strlen(y) != 0;
    return NULL;
}

static void *right(void *arg) {
    (void)arg;
    y[0] = 'b';
    r1 = memcmp(x, zero, sizeof x) != 0;
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
