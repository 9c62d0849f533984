// expect-sc: pass
// expect-tso: pass
// why: benchmark shaped like a user's test: a Treiber stack with C11 atomics (sequentially consistent) and malloc'd nodes with padding between `value` and `next`; three threads each push one node and pop one, and main frees what is left.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#ifndef THREADS
#define THREADS 3
#endif

struct node {
    int value;
    struct node *_Atomic next;
};

static struct node *_Atomic top;
static struct node *popped[THREADS];

static void push(int v) {
    struct node *n = malloc(sizeof *n);
    n->value = v;
    struct node *old = atomic_load(&top);
    do {
        atomic_store(&n->next, old);
    } while (!atomic_compare_exchange_weak(&top, &old, n));
}

/* Popped nodes are freed only by main after the joins, so none comes back (no ABA). */
static struct node *pop(void) {
    struct node *old = atomic_load(&top);
    while (old != NULL && !atomic_compare_exchange_weak(&top, &old, atomic_load(&old->next)))
        ;
    return old;
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
    int sum = 0;
    for (int i = 0; i < THREADS; i++) {
        assert(popped[i] != NULL);
        sum += popped[i]->value;
        free(popped[i]);
    }
    assert(sum == THREADS * (THREADS + 1) / 2);
    assert(atomic_load(&top) == NULL);
    return 0;
}
