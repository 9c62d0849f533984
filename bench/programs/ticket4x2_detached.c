// expect-sc: pass
// expect-tso: pass
// why: benchmark: ticket4x2 with detached workers started with the same argument and main waiting on a semaphore the workers post instead of joining handles it keeps, so the workers are interchangeable (thread symmetry applies).
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
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
sem_t finished;

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
    sem_post(&finished);
    return NULL;
}

int main(void) {
    sem_init(&finished, 0, 0);
    for (long i = 0; i < THREADS; i++) {
        pthread_t t;
        pthread_create(&t, NULL, work, NULL);
        pthread_detach(t);
    }
    for (int i = 0; i < THREADS; i++)
        sem_wait(&finished);
    assert(counter == THREADS * ROUNDS);
    return 0;
}
