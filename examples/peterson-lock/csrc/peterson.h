/* Peterson's mutual exclusion for two threads, numbered 0 and 1. */
#ifndef PETERSON_H
#define PETERSON_H

struct peterson_lock {
    int interested[2]; /* interested[i]: thread i wants to enter */
    int turn;          /* who yields when both want to enter */
};

void peterson_init(struct peterson_lock *lock);

/* Correct on x86: a full fence separates announcing interest from looking at
 * the other thread's interest. */
void peterson_lock(struct peterson_lock *lock, int me);

/* The textbook algorithm without the fence. Correct under sequential
 * consistency, broken under x86-TSO: both threads' announcements can still sit in
 * their store buffers while each reads the other's flag as 0. Kept to show
 * what `cargo tso test` finds; do not use. */
void peterson_lock_unfenced(struct peterson_lock *lock, int me);

void peterson_unlock(struct peterson_lock *lock, int me);

#endif
