// expect-sc: pass
// why: a store to an escaped local may still be buffered when its function returns; it must never land in a later frame's slot.
// writer_frame publishes the address of its local (so the store to it goes
// through the store buffer) and returns. reader_frame then runs at the same
// stack depth with a local whose address does not escape (written to memory
// directly): a stale delayed store flushed into it would be seen.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

int *volatile published;
volatile int noise;

__attribute__((noinline)) static void writer_frame(void) {
    int slot;
    published = &slot;
    int *view = published; /* through the published pointer: -O2 keeps the store */
    *view = 5;             /* buffered under TSO */
    published = NULL;
}

__attribute__((noinline)) static int reader_frame(void) {
    volatile int fresh = 0;
    int seen = noise; /* shared loads: chances for buffered stores to drain */
    seen += noise;
    (void)seen;
    return fresh;
}

static void *observer(void *arg) {
    (void)arg;
    for (int k = 0; k < 2; k++)
        noise = (published != NULL);
    return NULL;
}

static void *owner(void *arg) {
    (void)arg;
    for (int round = 0; round < 2; round++) {
        writer_frame();
        assert(reader_frame() == 0);
    }
    return NULL;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, NULL, owner, NULL);
    pthread_create(&b, NULL, observer, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}
