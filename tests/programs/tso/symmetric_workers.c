// expect-sc: pass
// expect-tso: pass
// why: thread symmetry: three detached workers run the same code on the same argument; their buffered stores (and the flushes that order them) are renamed with the threads, so states that differ only in which worker is which are stored once.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

int data[2];
atomic_int done;

static void *work(void *arg) {
    (void)arg;
    data[0] = 1;
    int seen = data[1];
    data[1] = seen + 1 > 1 ? 1 : seen + 1;
    atomic_fetch_add(&done, 1);
    return NULL;
}

int main(void) {
    for (int i = 0; i < 3; i++) {
        pthread_t t;
        pthread_create(&t, NULL, work, NULL);
        pthread_detach(t);
    }
    while (atomic_load(&done) != 3)
        ;
    assert(data[0] == 1 && data[1] == 1);
    return 0;
}
