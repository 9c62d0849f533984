// expect-sc: pass
// check-args: --races deny
// why: relaxed atomics alone never race: a relaxed counter
#include <pthread.h>
#include <stdatomic.h>
atomic_int counter;
void *inc(void *a) {
    atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed);
    return 0;
}
int main(void) {
    pthread_t t1, t2;
    pthread_create(&t1, 0, inc, 0);
    pthread_create(&t2, 0, inc, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    return atomic_load_explicit(&counter, memory_order_relaxed) == 2 ? 0 : 1;
}
