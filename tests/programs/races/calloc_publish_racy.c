// expect-sc: fail data-race
// check-args: --races deny
// why: calloc's zeros are a write by the allocating thread; a relaxed publication does not order it before the reader's read
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
struct node { int v; };
_Atomic(struct node *) p;
void *writer(void *a) {
    atomic_store_explicit(&p, calloc(1, sizeof(struct node)), memory_order_relaxed);
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, writer, 0);
    int r = 0;
    struct node *n = atomic_load_explicit(&p, memory_order_relaxed);
    if (n)
        r = n->v;
    pthread_join(t, 0);
    free(atomic_load_explicit(&p, memory_order_relaxed));
    return r;
}
