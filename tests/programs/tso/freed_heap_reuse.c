// expect-sc: pass
// why: a store to a shared heap object may still be buffered when the object is freed; it must never land in memory allocated afterwards.
// The first object is published (so its stores go through the store buffer);
// the later ones are private (so their stores bypass it): a stale delayed store
// into the freed object, if flushed into reused memory, would change them.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

int *volatile published;
volatile int noise;

static void *observer(void *arg) {
    (void)arg;
    for (int k = 0; k < 2; k++)
        noise = (published != NULL);
    return NULL;
}

static void *owner(void *arg) {
    (void)arg;
    for (int round = 0; round < 2; round++) {
        int *p = malloc(sizeof *p);
        if (!p)
            return NULL;
        published = p;
        int *volatile_view = published; /* through the published pointer: -O2 keeps the store */
        *volatile_view = 7;             /* buffered under TSO */
        assert(*volatile_view == 7);    /* forwarded from the own buffer */
        published = NULL;
        free(p);           /* the buffered store dies with the object */

        int *q = malloc(sizeof *q);
        int *z = calloc(1, sizeof *z);
        if (!q || !z)
            return NULL;
        volatile int *vq = q, *vz = z; /* volatile: -O2 keeps the accesses in memory */
        *vq = 0;
        int seen = noise;  /* shared loads: chances for buffered stores to drain */
        (void)seen;
        seen = noise;
        assert(*vq == 0);
        assert(*vz == 0);
        free(q);
        free(z);
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
