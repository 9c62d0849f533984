// expect-sc: fail data-race
// check-args: --races deny
// why: C11 threads: one thread increments under mtx_lock, the other without it
#include <threads.h>
int counter;
mtx_t m;
int locked(void *a) {
    mtx_lock(&m);
    counter++;
    mtx_unlock(&m);
    return 0;
}
int unlocked(void *a) {
    counter++;
    return 0;
}
int main(void) {
    thrd_t t1, t2;
    mtx_init(&m, mtx_plain);
    thrd_create(&t1, locked, 0);
    thrd_create(&t2, unlocked, 0);
    thrd_join(t1, 0);
    thrd_join(t2, 0);
    return 0;
}
