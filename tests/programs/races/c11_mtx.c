// expect-sc: pass
// check-args: --races deny
// why: C11 threads: a counter incremented under mtx_lock by two threads, read after thrd_join
#include <threads.h>
int counter;
mtx_t m;
int inc(void *a) {
    mtx_lock(&m);
    counter++;
    mtx_unlock(&m);
    return 0;
}
int main(void) {
    thrd_t t1, t2;
    mtx_init(&m, mtx_plain);
    thrd_create(&t1, inc, 0);
    thrd_create(&t2, inc, 0);
    thrd_join(t1, 0);
    thrd_join(t2, 0);
    return counter == 2 ? 0 : 1;
}
