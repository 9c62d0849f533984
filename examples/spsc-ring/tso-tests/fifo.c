/* The ring delivers every item exactly once and in order, in every interleaving
 * and every store-buffer behaviour. Capacity 2 and 3 items: the producer must
 * wait for the consumer at least once, and the state space stays small. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <tso.h>

#include "spsc_ring.h"

#define CAPACITY 2
#define ITEMS 3

static struct spsc_ring ring;
static int slots[CAPACITY];

/* Pushes 1..n, n passed as the thread argument, waiting while the ring is full. */
static void *producer(void *arg) {
    int items = (int)(intptr_t)arg;
    for (int item = 1; item <= items; item++) {
        while (!spsc_ring_push(&ring, item)) {
        }
    }
    return NULL;
}

static void *consumer(void *arg) {
    (void)arg;
    for (int expected = 1; expected <= ITEMS; expected++) {
        int value = 0;
        while (!spsc_ring_pop(&ring, &value)) {
        }
        TSO_ASSERT(value == expected);
    }
    return NULL;
}

TSO_TEST(fifo_order_producer_and_consumer) {
    spsc_ring_init(&ring, slots, CAPACITY);
    pthread_t producer_thread, consumer_thread;
    pthread_create(&producer_thread, NULL, producer, (void *)(intptr_t)ITEMS);
    pthread_create(&consumer_thread, NULL, consumer, NULL);
    pthread_join(producer_thread, NULL);
    pthread_join(consumer_thread, NULL);
    int leftover;
    TSO_ASSERT(!spsc_ring_pop(&ring, &leftover));
}

/* The consumer never observes more items than were pushed, nor a slot before the
 * producer's write to it reached memory. */
TSO_TEST(pop_never_sees_unwritten_slot) {
    spsc_ring_init(&ring, slots, CAPACITY);
    slots[0] = slots[1] = -1;
    pthread_t producer_thread;
    /* Only as many items as fit, so the producer never waits for us. */
    pthread_create(&producer_thread, NULL, producer, (void *)(intptr_t)CAPACITY);
    int value;
    if (spsc_ring_pop(&ring, &value)) {
        TSO_ASSERT(value == 1);
    }
    pthread_join(producer_thread, NULL);
}
