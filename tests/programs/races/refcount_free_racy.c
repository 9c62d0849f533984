// expect-sc: fail data-race
// check-args: --races deny
// error-contains: deallocates it
// why: deallocation is a write of the whole object: the reader's read of the payload and its relaxed decrement are not ordered before the other thread's free (a relaxed decrement needs an acquire fence before the last owner frees)
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
    if (atomic_fetch_sub_explicit(&p->refs, 1, memory_order_relaxed) == 1)
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
