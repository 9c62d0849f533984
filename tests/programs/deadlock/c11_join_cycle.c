// expect-sc: fail deadlock
// error-contains: holds mutex `m` and waits for thread 1 to finish
// why: C11 threads: the worker waits for a mutex main holds while main joins the worker.
#include <threads.h>
static mtx_t m;
static int worker(void *arg) {
    (void)arg;
    mtx_lock(&m);
    mtx_unlock(&m);
    return 0;
}
int main(void) {
    thrd_t t;
    mtx_init(&m, mtx_plain);
    mtx_lock(&m);
    thrd_create(&t, worker, 0);
    thrd_join(t, 0);
    mtx_unlock(&m);
    return 0;
}
