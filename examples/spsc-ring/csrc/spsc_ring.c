#include "spsc_ring.h"

/* Synchronisation: the producer fills a slot, then publishes it with a release
 * store of `tail`; the consumer reads `tail` with acquire before reading the slot.
 * Symmetrically `head` hands emptied slots back. On x86 acquire loads and release
 * stores are plain moves: TSO already keeps stores in order and loads in order,
 * so no fence is needed. Each counter has one writer, so relaxed loads of one's
 * own counter suffice. */

void spsc_ring_init(struct spsc_ring *ring, int *slots, size_t capacity) {
    __atomic_store_n(&ring->head, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&ring->tail, 0, __ATOMIC_RELAXED);
    ring->capacity = capacity;
    ring->slots = slots;
}

bool spsc_ring_push(struct spsc_ring *ring, int value) {
    size_t tail = __atomic_load_n(&ring->tail, __ATOMIC_RELAXED);
    size_t head = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
    if (tail - head >= ring->capacity) {
        return false;
    }
    ring->slots[tail % ring->capacity] = value;
    __atomic_store_n(&ring->tail, tail + 1, __ATOMIC_RELEASE);
    return true;
}

bool spsc_ring_pop(struct spsc_ring *ring, int *value) {
    size_t head = __atomic_load_n(&ring->head, __ATOMIC_RELAXED);
    size_t tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
    if (tail == head) {
        return false;
    }
    *value = ring->slots[head % ring->capacity];
    __atomic_store_n(&ring->head, head + 1, __ATOMIC_RELEASE);
    return true;
}
