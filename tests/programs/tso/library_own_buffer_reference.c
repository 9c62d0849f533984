// expect-sc: pass
// expect-tso: pass
// check-args: --reference-machine
// why: the reference machine buffers stores to a thread's unshared memory while its buffer holds anything; a library call's reads of that memory must see them and its writes must not be overtaken by them (they went around the buffer).
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

uint32_t shared_word;
/* Called through volatile pointers, so -O2 keeps the library calls. */
void *(*volatile copy_fn)(void *, const void *, size_t) = memcpy;
void *(*volatile set_fn)(void *, int, size_t) = memset;

static void *worker(void *arg) {
    (void)arg;
    /* A plain x86 store (relaxed: no data race), left buffered: later stores queue behind it. */
    __atomic_store_n(&shared_word, 0x21212121u, __ATOMIC_RELAXED);
    uint32_t copied = 0;       /* buffered too */
    copy_fn(&copied, (const void *)&shared_word, sizeof copied);
    assert(copied == 0x21212121u); /* not overwritten by the older `copied = 0` */
    uint32_t local = 7;
    uint32_t out = 0;
    copy_fn(&out, &local, sizeof out);
    assert(out == 7); /* the copy read the buffered `local = 7` */
    uint8_t bytes[4] = {1, 2, 3, 4};
    set_fn(bytes, 9, 2);
    assert(bytes[0] == 9 && bytes[1] == 9 && bytes[2] == 3);
    return NULL;
}

static void *other(void *arg) {
    (void)arg;
    return (void *)(uintptr_t)__atomic_load_n(&shared_word, __ATOMIC_RELAXED);
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, NULL, worker, NULL);
    pthread_create(&b, NULL, other, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}
