// expect-sc: pass
// check-args: --races deny
// why: realloc releases the old block after the reader's read, which a release store and an acquire load order before it
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
int *buf;
atomic_int read_done;
int seen;
void *reader(void *a) {
    seen = buf[1];
    atomic_store_explicit(&read_done, 1, memory_order_release);
    return a;
}
int main(void) {
    buf = calloc(4, sizeof *buf);
    pthread_t t;
    pthread_create(&t, 0, reader, 0);
    while (!atomic_load_explicit(&read_done, memory_order_acquire))
        ;
    int *bigger = realloc(buf, 8 * sizeof *buf);
    pthread_join(t, 0);
    int r = bigger[1];
    free(bigger);
    return r;
}
