// expect-sc: pass
// why: the twin of lost_handoff.c: the producer sets `ready` whoever won the CAS, so a consumer's spin always has a way out.
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
    atomic_compare_exchange_strong(&claimed, &expected, 1);
    atomic_store(&ready, 1);
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
