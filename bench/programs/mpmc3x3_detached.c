// expect-sc: pass
// expect-tso: pass
// why: benchmark: mpmc3x3 with detached threads and main waiting on a semaphore the workers post instead of joining handles it keeps; the consumers are interchangeable (thread symmetry applies), the producers differ by the item they enqueue.
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#ifndef PRODUCERS
#define PRODUCERS 3
#endif
#define CAPACITY 4

struct cell {
    atomic_size_t seq;
    int data;
};

static struct cell cells[CAPACITY];
static atomic_size_t enqueue_pos, dequeue_pos;
static atomic_int consumed_sum;
static sem_t finished;

static int enqueue(int v) {
    size_t pos = atomic_load_explicit(&enqueue_pos, memory_order_relaxed);
    struct cell *c;
    for (;;) {
        c = &cells[pos % CAPACITY];
        size_t seq = atomic_load_explicit(&c->seq, memory_order_acquire);
        intptr_t dif = (intptr_t)seq - (intptr_t)pos;
        if (dif == 0) {
            if (atomic_compare_exchange_weak_explicit(&enqueue_pos, &pos, pos + 1,
                                                      memory_order_relaxed,
                                                      memory_order_relaxed))
                break;
        } else if (dif < 0) {
            return 0; /* full */
        } else {
            pos = atomic_load_explicit(&enqueue_pos, memory_order_relaxed);
        }
    }
    c->data = v;
    atomic_store_explicit(&c->seq, pos + 1, memory_order_release);
    return 1;
}

static int dequeue(int *v) {
    size_t pos = atomic_load_explicit(&dequeue_pos, memory_order_relaxed);
    struct cell *c;
    for (;;) {
        c = &cells[pos % CAPACITY];
        size_t seq = atomic_load_explicit(&c->seq, memory_order_acquire);
        intptr_t dif = (intptr_t)seq - (intptr_t)(pos + 1);
        if (dif == 0) {
            if (atomic_compare_exchange_weak_explicit(&dequeue_pos, &pos, pos + 1,
                                                      memory_order_relaxed,
                                                      memory_order_relaxed))
                break;
        } else if (dif < 0) {
            return 0; /* empty */
        } else {
            pos = atomic_load_explicit(&dequeue_pos, memory_order_relaxed);
        }
    }
    *v = c->data;
    atomic_store_explicit(&c->seq, pos + CAPACITY, memory_order_release);
    return 1;
}

static void *producer(void *arg) {
    while (!enqueue((int)(intptr_t)arg))
        ;
    sem_post(&finished);
    return NULL;
}

static void *consumer(void *arg) {
    (void)arg;
    int v;
    while (!dequeue(&v))
        ;
    atomic_fetch_add(&consumed_sum, v);
    sem_post(&finished);
    return NULL;
}

int main(void) {
    sem_init(&finished, 0, 0);
    for (size_t i = 0; i < CAPACITY; i++)
        atomic_store_explicit(&cells[i].seq, i, memory_order_relaxed);
    for (intptr_t i = 0; i < PRODUCERS; i++) {
        pthread_t t;
        pthread_create(&t, NULL, producer, (void *)(i + 1));
        pthread_detach(t);
        pthread_create(&t, NULL, consumer, NULL);
        pthread_detach(t);
    }
    for (int i = 0; i < 2 * PRODUCERS; i++)
        sem_wait(&finished);
    /* Every item was dequeued exactly once. */
    assert(atomic_load(&consumed_sum) == PRODUCERS * (PRODUCERS + 1) / 2);
    return 0;
}
