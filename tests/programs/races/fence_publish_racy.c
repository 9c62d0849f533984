// expect-sc: fail data-race
// check-args: --races deny
// why: the release fence has no acquire fence on the reader's side
#include <pthread.h>
#include <stdatomic.h>
int data;
atomic_int flag;
void *writer(void *a) {
    data = 42;
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&flag, 1, memory_order_relaxed);
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, writer, 0);
    while (!atomic_load_explicit(&flag, memory_order_relaxed))
        ;
    int v = data;
    pthread_join(t, 0);
    return v == 42 ? 0 : 1;
}
