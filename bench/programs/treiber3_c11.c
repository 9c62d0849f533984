// expect-sc: pass
// expect-tso: pass
// why: benchmark: treiber4.c written race-free in C11, with three threads (four: millions of states): `top` is atomic, loads acquire, CAS acq_rel; each thread pushes one node and pops one.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#ifndef THREADS
#define THREADS 3
#endif

struct node {
    int value;
    struct node *next;
};

/* The next fields are written before the node is published by a release CAS and
 * read only after an acquire load of `top` that saw it: never a race. */
_Atomic(struct node *) top;
int popped[THREADS];

static void push(int v) {
    struct node *n = malloc(sizeof *n);
    n->value = v;
    struct node *old = atomic_load_explicit(&top, memory_order_acquire);
    do {
        n->next = old;
    } while (!atomic_compare_exchange_weak_explicit(&top, &old, n, memory_order_acq_rel,
                                                    memory_order_acquire));
}

/* Nodes are never freed, so a popped node cannot come back (no ABA). */
static int pop(void) {
    struct node *old = atomic_load_explicit(&top, memory_order_acquire);
    do {
        if (old == NULL)
            return -1;
    } while (!atomic_compare_exchange_weak_explicit(&top, &old, old->next, memory_order_acq_rel,
                                                    memory_order_acquire));
    return old->value;
}

static void *work(void *arg) {
    int me = (int)(long)arg;
    push(me + 1);
    popped[me] = pop();
    return NULL;
}

int main(void) {
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, work, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    /* Every thread popped after its own push, so each pop found a node. */
    int sum = 0;
    for (int i = 0; i < THREADS; i++) {
        assert(popped[i] > 0);
        sum += popped[i];
    }
    assert(sum == THREADS * (THREADS + 1) / 2);
    assert(atomic_load(&top) == NULL);
    return 0;
}
