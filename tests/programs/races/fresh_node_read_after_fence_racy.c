// expect-sc: fail data-race
// check-args: --races deny
// why: the writer reads the node after its release fence; the reader's write after its acquire fence is not ordered after that read
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
struct node { int v; };
_Atomic(struct node *) p;
int seen;
void *writer(void *a) {
    struct node *n = malloc(sizeof *n);
    n->v = 42;
    atomic_thread_fence(memory_order_release);
    seen = *(volatile int *)&n->v;
    atomic_store_explicit(&p, n, memory_order_relaxed);
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, writer, 0);
    struct node *n = atomic_load_explicit(&p, memory_order_relaxed);
    if (n) {
        atomic_thread_fence(memory_order_acquire);
        n->v = 7;
    }
    pthread_join(t, 0);
    free(atomic_load_explicit(&p, memory_order_relaxed));
    return seen == 42 ? 0 : 1;
}
