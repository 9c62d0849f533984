#include "handoff.h"

/* The flag's orders. Release on the store and acquire on the load make the message
 * written before the flag visible to whoever sees the flag. With HANDOFF_RELAXED
 * (the bug) both are relaxed: x86 still keeps the two stores in order, so every x86
 * test passes, but C11 lets the receiver see the flag and the old message, and ARM
 * and POWER CPUs (or the compiler) do. */
#ifdef HANDOFF_RELAXED
#define PUBLISH_ORDER memory_order_relaxed
#define RECEIVE_ORDER memory_order_relaxed
#else
#define PUBLISH_ORDER memory_order_release
#define RECEIVE_ORDER memory_order_acquire
#endif

void handoff_init(struct handoff *h) {
    atomic_init(&h->message, 0);
    atomic_init(&h->ready, false);
}

void handoff_publish(struct handoff *h, int message) {
    atomic_store_explicit(&h->message, message, memory_order_relaxed);
    atomic_store_explicit(&h->ready, true, PUBLISH_ORDER);
}

bool handoff_receive(struct handoff *h, int *message) {
    if (!atomic_load_explicit(&h->ready, RECEIVE_ORDER))
        return false;
    *message = atomic_load_explicit(&h->message, memory_order_relaxed);
    return true;
}
