// expect-sc: fail data-race
// check-args: --races deny
// why: the reader reads the plain data whether or not the seq_cst store was seen
#include <pthread.h>
#include <stdatomic.h>
int data;
atomic_int flag;
void *writer(void *a) {
    data = 42;
    atomic_store_explicit(&flag, 1, memory_order_seq_cst);
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, writer, 0);
    int f = atomic_load_explicit(&flag, memory_order_seq_cst);
    int v = data;
    pthread_join(t, 0);
    return f + v >= 0 ? 0 : 1;
}
