// expect-sc: pass
// why: __VERIFIER_atomic_begin/end make a load-add-store atomic, so no update is lost (compare racy_counter.c).
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);

volatile int counter;

static void *work(void *arg) {
    (void)arg;
    __VERIFIER_atomic_begin();
    int v = counter;
    counter = v + 1;
    /* drain the store buffer inside the section, so the TSO verdict does not
       depend on whether atomic sections themselves act as fences */
    __sync_synchronize();
    __VERIFIER_atomic_end();
    return NULL;
}

int main(void) {
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert(counter == 2);
    return 0;
}
