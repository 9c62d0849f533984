// expect-sc: pass
// expect-tso: pass
// why: benchmark: a work-stealing deque (Chase-Lev, fixed array, seq_cst atomics); the owner pushes three tasks and takes two while two thieves steal one each: no task is run twice.
// -DTASKS=5 -DTHIEVES=3 is the larger deque of issue 31's targets (five tasks, three thieves).
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#ifndef TASKS
#define TASKS 3
#endif
#ifndef THIEVES
#define THIEVES 2
#endif
#if TASKS <= 4
#define SIZE 4
#else
#define SIZE 8
#endif

static atomic_long top, bottom;
static atomic_int tasks[SIZE];
static atomic_int runs[TASKS + 1];

static void push(int v) {
    long b = atomic_load(&bottom);
    atomic_store(&tasks[b % SIZE], v);
    atomic_store(&bottom, b + 1);
}

/* The owner's end: -1 when empty or when a thief took the last task. */
static int take(void) {
    long b = atomic_load(&bottom) - 1;
    atomic_store(&bottom, b);
    long t = atomic_load(&top);
    if (t > b) {
        atomic_store(&bottom, b + 1);
        return -1;
    }
    int v = atomic_load(&tasks[b % SIZE]);
    if (t == b) {
        if (!atomic_compare_exchange_strong(&top, &t, t + 1))
            v = -1;
        atomic_store(&bottom, b + 1);
    }
    return v;
}

static int steal(void) {
    long t = atomic_load(&top);
    long b = atomic_load(&bottom);
    if (t >= b)
        return -1;
    int v = atomic_load(&tasks[t % SIZE]);
    if (!atomic_compare_exchange_strong(&top, &t, t + 1))
        return -1;
    return v;
}

static void run(int v) {
    if (v > 0)
        atomic_fetch_add(&runs[v], 1);
}

static void *thief(void *arg) {
    (void)arg;
    run(steal());
    return NULL;
}

int main(void) {
    pthread_t t[THIEVES];
    for (int i = 0; i < THIEVES; i++)
        pthread_create(&t[i], NULL, thief, NULL);
    for (int v = 1; v <= TASKS; v++)
        push(v);
    run(take());
    run(take());
    for (int i = 0; i < THIEVES; i++)
        pthread_join(t[i], NULL);
    for (int v = 1; v <= TASKS; v++)
        assert(atomic_load(&runs[v]) <= 1);
    return 0;
}
