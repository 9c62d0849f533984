// expect-sc: pass
// expect-tso: pass
// why: benchmark shaped like a user's test: ticket4x2.c written with C11 atomics, a relaxed fetch-and-add for the ticket, acquire loads of `now_serving` and a release store to hand the lock on; four threads take it twice each.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#ifndef THREADS
#define THREADS 4
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif

static atomic_uint next_ticket;
static atomic_uint now_serving;
static int counter;

static void *work(void *arg) {
    (void)arg;
    for (int r = 0; r < ROUNDS; r++) {
        unsigned mine = atomic_fetch_add_explicit(&next_ticket, 1, memory_order_relaxed);
        while (atomic_load_explicit(&now_serving, memory_order_acquire) != mine) {
        }
        counter++;
        atomic_store_explicit(&now_serving, mine + 1, memory_order_release);
    }
    return NULL;
}

int main(void) {
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    assert(counter == THREADS * ROUNDS);
    return 0;
}
