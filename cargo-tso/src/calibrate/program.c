// The program `cargo tso calibrate` times: three threads take a test-and-set lock in
// turn and move a value between two counters, the shape of a user's lock test. It
// passes; its state space (tens of thousands of states) takes about a second to
// search on one worker.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#define THREADS 3
#define ROUNDS 4

static atomic_int lock;
static int from = THREADS * ROUNDS, to;

static void *mover(void *arg) {
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        while (atomic_exchange(&lock, 1)) {
        }
        from -= 1;
        to += 1;
        assert(from + to == THREADS * ROUNDS);
        atomic_store(&lock, 0);
    }
    return 0;
}

int main(void) {
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], 0, mover, 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], 0);
    assert(from == 0 && to == THREADS * ROUNDS);
    return 0;
}
