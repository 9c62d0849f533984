// expect-sc: fail data-race
// check-args: --races deny
// why: the node is written after the release fence, so the reader's acquire fence does not order that write before its read
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
struct node { int v; };
_Atomic(struct node *) p;
void *writer(void *a) {
    struct node *n = malloc(sizeof *n);
    atomic_thread_fence(memory_order_release);
    n->v = 42;
    atomic_store_explicit(&p, n, memory_order_relaxed);
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, writer, 0);
    int r = 42;
    struct node *n = atomic_load_explicit(&p, memory_order_relaxed);
    if (n) {
        atomic_thread_fence(memory_order_acquire);
        r = n->v;
    }
    pthread_join(t, 0);
    free(atomic_load_explicit(&p, memory_order_relaxed));
    return r == 42 ? 0 : 1;
}
