// expect-sc: fail uninitialized
// why: a writer thread publishes a value it never initialised; the reader branches on it.
#include <pthread.h>
#include <stdio.h>

int slot;
int ready;

static void *writer(void *arg) {
    (void)arg;
    int v;
    volatile int *p = &v;
    slot = *p;
    __atomic_store_n(&ready, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, NULL, writer, NULL);
    while (!__atomic_load_n(&ready, __ATOMIC_SEQ_CST))
        ;
    if (*(volatile int *)&slot > 0)
        puts("positive");
    pthread_join(t, NULL);
    return 0;
}
