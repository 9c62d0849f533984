// expect-sc: fail data-race
// check-args: --races deny
// error-contains: deallocates it
// why: a stack frame's end deallocates its locals: main reads the worker's local through a published pointer, and its relaxed "done" store does not order that read before the worker returns
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
_Atomic(int *) shared;
atomic_int done;
void *worker(void *a) {
    int local = 7;
    atomic_store_explicit(&shared, &local, memory_order_release);
    while (!atomic_load_explicit(&done, memory_order_relaxed))
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
    atomic_store_explicit(&done, 1, memory_order_relaxed);
    pthread_join(t, 0);
    return v == 7 ? 0 : 1;
}
