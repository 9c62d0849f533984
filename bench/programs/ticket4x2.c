// expect-sc: pass
// expect-tso: pass
// why: benchmark: a ticket lock (fetch-and-add for the ticket, plain store to release); four threads take it twice each.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

#ifndef THREADS
#define THREADS 4
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif

unsigned next_ticket;
volatile unsigned now_serving;
int counter;

static void *work(void *arg) {
    (void)arg;
    for (int r = 0; r < ROUNDS; r++) {
        unsigned mine = __sync_fetch_and_add(&next_ticket, 1);
        while (now_serving != mine) {
        }
        int v = counter;
        counter = v + 1;
        now_serving = mine + 1;
    }
    return NULL;
}

int main(void) {
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, work, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    assert(counter == THREADS * ROUNDS);
    return 0;
}
