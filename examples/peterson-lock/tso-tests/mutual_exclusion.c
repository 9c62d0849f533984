/* Two threads each enter the critical section once. Inside, a locked increment
 * (which goes straight to memory) counts who is inside, and a plain increment of
 * a shared counter would lose an update if both were inside together. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <tso.h>

#include "peterson.h"

static struct peterson_lock lock;
static int use_fence; /* which lock() the workers call; set before they start */
static int inside;  /* threads in the critical section, updated atomically */
static int counter; /* protected by the lock */

static void *worker(void *arg) {
    int me = (int)(intptr_t)arg;
    if (use_fence) {
        peterson_lock(&lock, me);
    } else {
        peterson_lock_unfenced(&lock, me);
    }
    int before = __atomic_fetch_add(&inside, 1, __ATOMIC_SEQ_CST);
    TSO_ASSERT(before == 0);
    counter = counter + 1;
    __atomic_fetch_sub(&inside, 1, __ATOMIC_SEQ_CST);
    peterson_unlock(&lock, me);
    return NULL;
}

static void run_two_workers(int fenced) {
    peterson_init(&lock);
    use_fence = fenced;
    inside = 0;
    counter = 0;
    pthread_t t0, t1;
    pthread_create(&t0, NULL, worker, (void *)(intptr_t)0);
    pthread_create(&t1, NULL, worker, (void *)(intptr_t)1);
    pthread_join(t0, NULL);
    pthread_join(t1, NULL);
    TSO_ASSERT(counter == 2);
}

TSO_TEST(fenced_lock_excludes) {
    run_two_workers(1);
}

/* Passes under sequential consistency (`--memory-model sc`), fails under TSO. */
TSO_TEST_SHOULD_FAIL_UNDER_TSO_WITH(unfenced_lock_fails_under_tso, assertion) {
    run_two_workers(0);
}
