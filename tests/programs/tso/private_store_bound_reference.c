// expect-sc: pass
// expect-tso: fail assertion
// check-args: --reference-machine --sb-bound 1
// why: a store to memory no other thread can reach takes no store-buffer slot, in both machines: the library call's write to the escaped local `seen` must not push the buffered `a = 1` out early. The reference machine used to buffer it while any buffer held an entry, so at bound 1 it missed this outcome (and passed).
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

uint32_t a, b;
/* Called through a volatile pointer, so -O2 keeps the library call. */
void *(*volatile copy_fn)(void *, const void *, size_t) = memcpy;
uint32_t seen;

static void *reader(void *arg) {
    (void)arg;
    __atomic_store_n(&a, 1, __ATOMIC_RELAXED); /* buffered, the one slot */
    uint32_t got;
    copy_fn(&got, (const void *)&b, sizeof got); /* reads b, writes the private `got` */
    seen = got;
    return NULL;
}

static void *writer(void *arg) {
    (void)arg;
    __atomic_store_n(&b, 1, __ATOMIC_SEQ_CST); /* in memory before a = 2 */
    __atomic_store_n(&a, 2, __ATOMIC_RELAXED);
    return NULL;
}

int main(void) {
    pthread_t r, w;
    pthread_create(&r, NULL, reader, NULL);
    pthread_create(&w, NULL, writer, NULL);
    pthread_join(r, NULL);
    pthread_join(w, NULL);
    /* seen == 0: the copy read b before b = 1, so before a = 2 reached memory;
     * a == 1: reader's a = 1 reached memory after a = 2, so it stayed buffered
     * across the copy's private write. Reachable under x86-TSO at bound 1. */
    assert(!(seen == 0 && a == 1));
    return 0;
}
