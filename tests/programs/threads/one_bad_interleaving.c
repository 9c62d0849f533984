// expect-sc: fail assertion
// why: three threads each make one atomic step; only the order a, b, c (one of six) reaches stage 3 and fails the assert.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

volatile int stage;

static void *step_a(void *arg) {
    (void)arg;
    __sync_val_compare_and_swap(&stage, 0, 1);
    return NULL;
}

static void *step_b(void *arg) {
    (void)arg;
    __sync_val_compare_and_swap(&stage, 1, 2);
    return NULL;
}

static void *step_c(void *arg) {
    (void)arg;
    __sync_val_compare_and_swap(&stage, 2, 3);
    return NULL;
}

int main(void) {
    pthread_t t[3];
    /* created in reverse so the failing order is not the creation order */
    pthread_create(&t[2], NULL, step_c, NULL);
    pthread_create(&t[1], NULL, step_b, NULL);
    pthread_create(&t[0], NULL, step_a, NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    assert(stage != 3);
    return 0;
}
