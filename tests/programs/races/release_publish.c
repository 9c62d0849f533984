// expect-sc: pass
// check-args: --races deny
// why: plain data published with a release store and read after a acquire load
#include <pthread.h>
#include <stdatomic.h>
int data;
atomic_int flag;
void *writer(void *a) {
    data = 42;
    atomic_store_explicit(&flag, 1, memory_order_release);
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, writer, 0);
    while (!atomic_load_explicit(&flag, memory_order_acquire))
        ;
    int v = data;
    pthread_join(t, 0);
    return v == 42 ? 0 : 1;
}
