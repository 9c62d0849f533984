// expect-sc: pass
// check-args: --races deny
// why: calloc's zeros, published by a release store, are read after an acquire load
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
struct node { int v; };
_Atomic(struct node *) p;
void *writer(void *a) {
    atomic_store_explicit(&p, calloc(1, sizeof(struct node)), memory_order_release);
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, writer, 0);
    int r = 0;
    struct node *n = atomic_load_explicit(&p, memory_order_acquire);
    if (n)
        r = n->v;
    pthread_join(t, 0);
    free(atomic_load_explicit(&p, memory_order_relaxed));
    return r;
}
