// expect-sc: pass
// check-args: --races deny
// why: plain data published with a seq_cst store and read after a seq_cst load
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
    while (!atomic_load_explicit(&flag, memory_order_seq_cst))
        ;
    int v = data;
    pthread_join(t, 0);
    return v == 42 ? 0 : 1;
}
