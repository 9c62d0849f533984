// expect-sc: pass
// expect-tso: fail assertion
// why: sprintf and snprintf take no lock in glibc: the formatted store can stay buffered while the next load passes it.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

char x[8], y[8];
int r0, r1;

static void *left(void *arg) {
    (void)arg;
    sprintf(x, "%d", 7);
    char copy[8];
    snprintf(copy, sizeof copy, "%s", y);
    r0 = copy[0] != 0;
    return NULL;
}

static void *right(void *arg) {
    (void)arg;
    y[0] = '1';
    r1 = x[0] != 0;
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
