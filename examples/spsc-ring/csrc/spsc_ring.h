/* A bounded single-producer/single-consumer ring of ints. One thread may push,
 * one other thread may pop, concurrently, without locks. */
#ifndef SPSC_RING_H
#define SPSC_RING_H

#include <stdbool.h>
#include <stddef.h>

struct spsc_ring {
    size_t head;     /* items popped so far; written by the consumer only */
    size_t tail;     /* items pushed so far; written by the producer only */
    size_t capacity; /* number of slots */
    int *slots;      /* capacity slots, owned by the caller */
};

/* Prepares an empty ring over `slots` (capacity elements). */
void spsc_ring_init(struct spsc_ring *ring, int *slots, size_t capacity);

/* Producer side: appends `value`; false when the ring is full. */
bool spsc_ring_push(struct spsc_ring *ring, int value);

/* Consumer side: removes the oldest value into `*value`; false when empty. */
bool spsc_ring_pop(struct spsc_ring *ring, int *value);

#endif
