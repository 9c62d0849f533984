// expect-sc: pass
// expect-tso: pass
// why: benchmark: Treiber's lock-free stack; four threads each push one node and pop one with CAS.
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#ifndef THREADS
#define THREADS 4
#endif

struct node {
    int value;
    struct node *next;
};

struct node *top;
int popped[THREADS];

static void push(int v) {
    struct node *n = malloc(sizeof *n);
    n->value = v;
    struct node *old;
    do {
        old = top;
        n->next = old;
    } while (!__sync_bool_compare_and_swap(&top, old, n));
}

/* Nodes are never freed, so a popped node cannot come back (no ABA). */
static int pop(void) {
    struct node *old;
    do {
        old = top;
        if (old == NULL)
            return -1;
    } while (!__sync_bool_compare_and_swap(&top, old, old->next));
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
    assert(top == NULL);
    return 0;
}
