// expect-sc: fail non-terminating
// error-contains: can never end
// why: a lost handoff: the producer sets `ready` only if it wins the CAS on `claimed`; a consumer that wins takes the slot itself, and one that lost spins on `ready`; when a consumer wins, the other consumer's spin has no way out.
#include <pthread.h>
#include <stdatomic.h>

atomic_int claimed;
atomic_int ready;

static void *consumer(void *arg) {
    (void)arg;
    int expected = 0;
    if (atomic_compare_exchange_strong(&claimed, &expected, 2)) {
        return 0;
    }
    while (!atomic_load(&ready)) {
    }
    return 0;
}

static void *producer(void *arg) {
    (void)arg;
    int expected = 0;
    if (atomic_compare_exchange_strong(&claimed, &expected, 1)) {
        atomic_store(&ready, 1);
    }
    return 0;
}

int main(void) {
    pthread_t a, b, p;
    pthread_create(&a, 0, consumer, 0);
    pthread_create(&b, 0, consumer, 0);
    pthread_create(&p, 0, producer, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    pthread_join(p, 0);
    return 0;
}
