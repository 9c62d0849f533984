// expect-sc: pass
// check-args: --races deny
// why: the refcount shape with an acq_rel decrement: every access of the other owner happens before the free
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
struct obj {
    atomic_int refs;
    int payload;
};
struct obj *o;
int seen;
static void put(struct obj *p) {
    if (atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) == 1)
        free(p);
}
void *reader(void *a) {
    seen = o->payload;
    put(o);
    return a;
}
int main(void) {
    o = malloc(sizeof *o);
    atomic_init(&o->refs, 2);
    o->payload = 42;
    pthread_t t;
    pthread_create(&t, 0, reader, 0);
    put(o);
    pthread_join(t, 0);
    return 0;
}
