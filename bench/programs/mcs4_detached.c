// expect-sc: pass
// expect-tso: pass
// why: benchmark: mcs4 with detached workers and main waiting on a semaphore the workers post instead of joining handles it keeps, so the workers are interchangeable (thread symmetry applies).
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stddef.h>

#ifndef THREADS
#define THREADS 4
#endif

struct qnode {
    _Atomic(struct qnode *) next;
    atomic_int locked;
};

static _Atomic(struct qnode *) tail;
static int inside, entered;
static sem_t finished;

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
    lock(&me);
    inside++;
    assert(inside == 1);
    entered++;
    inside--;
    unlock(&me);
    sem_post(&finished);
    return NULL;
}

int main(void) {
    sem_init(&finished, 0, 0);
    for (int i = 0; i < THREADS; i++) {
        pthread_t t;
        pthread_create(&t, NULL, work, NULL);
        pthread_detach(t);
    }
    for (int i = 0; i < THREADS; i++)
        sem_wait(&finished);
    assert(entered == THREADS);
    return 0;
}
