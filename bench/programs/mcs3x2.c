// expect-sc: pass
// expect-tso: pass
// why: benchmark shaped like a user's test: the MCS queue lock of mcs4.c, three threads entering the critical section twice each, with their queue node on their own stack.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#ifndef THREADS
#define THREADS 3
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif

struct qnode {
    _Atomic(struct qnode *) next;
    atomic_int locked;
};

static _Atomic(struct qnode *) tail;
static int inside, entered;

static void lock(struct qnode *me) {
    atomic_store(&me->next, NULL);
    atomic_store(&me->locked, 1);
    struct qnode *prev = atomic_exchange(&tail, me);
    if (prev != NULL) {
        atomic_store(&prev->next, me);
        while (atomic_load(&me->locked))
            ;
    }
}

static void unlock(struct qnode *me) {
    struct qnode *succ = atomic_load(&me->next);
    if (succ == NULL) {
        struct qnode *expected = me;
        if (atomic_compare_exchange_strong(&tail, &expected, NULL))
            return;
        while ((succ = atomic_load(&me->next)) == NULL)
            ;
    }
    atomic_store(&succ->locked, 0);
}

static void *work(void *arg) {
    (void)arg;
    struct qnode me;
    for (int r = 0; r < ROUNDS; r++) {
        lock(&me);
        inside++;
        assert(inside == 1);
        entered++;
        inside--;
        unlock(&me);
    }
    return NULL;
}

int main(void) {
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    assert(entered == THREADS * ROUNDS);
    return 0;
}
