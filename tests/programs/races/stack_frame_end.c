// expect-sc: pass
// check-args: --races deny
// why: a stack frame's end deallocates its locals: main's read of the worker's local happens before the worker returns (release store of "done", acquire load)
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
_Atomic(int *) shared;
atomic_int done;
void *worker(void *a) {
    int local = 7;
    atomic_store_explicit(&shared, &local, memory_order_release);
    while (!atomic_load_explicit(&done, memory_order_acquire))
        ;
    return a;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    int *p;
    while ((p = atomic_load_explicit(&shared, memory_order_acquire)) == NULL)
        ;
    int v = *p;
    atomic_store_explicit(&done, 1, memory_order_release);
    pthread_join(t, 0);
    return v == 7 ? 0 : 1;
}
