#include "peterson.h"

void peterson_init(struct peterson_lock *lock) {
    __atomic_store_n(&lock->interested[0], 0, __ATOMIC_RELAXED);
    __atomic_store_n(&lock->interested[1], 0, __ATOMIC_RELAXED);
    __atomic_store_n(&lock->turn, 0, __ATOMIC_RELAXED);
}

static void announce(struct peterson_lock *lock, int me) {
    __atomic_store_n(&lock->interested[me], 1, __ATOMIC_RELAXED);
    __atomic_store_n(&lock->turn, 1 - me, __ATOMIC_RELAXED);
}

/* Acquire loads so the critical section cannot move above the wait. */
static void wait_for_turn(struct peterson_lock *lock, int me) {
    int other = 1 - me;
    while (__atomic_load_n(&lock->interested[other], __ATOMIC_ACQUIRE) &&
           __atomic_load_n(&lock->turn, __ATOMIC_ACQUIRE) == other) {
    }
}

void peterson_lock(struct peterson_lock *lock, int me) {
    announce(lock, me);
    /* A sequentially consistent fence is `mfence` on x86: it drains the store
     * buffer, so the other thread can see our interest before we read its. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    wait_for_turn(lock, me);
}

void peterson_lock_unfenced(struct peterson_lock *lock, int me) {
    announce(lock, me);
    wait_for_turn(lock, me);
}

void peterson_unlock(struct peterson_lock *lock, int me) {
    __atomic_store_n(&lock->interested[me], 0, __ATOMIC_RELEASE);
}
