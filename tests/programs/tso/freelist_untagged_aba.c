// expect-sc: fail assertion
// why: a lock-free free list whose head is a plain pointer (8-byte compare-exchange): while one thread holds the old head and its successor, another pops both and pushes the first back, so the stale compare-exchange succeeds (ABA) and installs a node in use; the tagged head of freelist_tagged_cmpxchg16b.c prevents it.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

struct node {
    struct node *next;
    int taken;
};

static struct node pool[3];
static struct node *top;

static struct node *pop(void) {
    struct node *old = __atomic_load_n(&top, __ATOMIC_SEQ_CST);
    struct node *next;
    do {
        if (old == NULL)
            return NULL;
        next = __atomic_load_n(&old->next, __ATOMIC_RELAXED);
    } while (!__atomic_compare_exchange_n(&top, &old, next, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    /* No two owners at once: a node handed out twice is the ABA bug. */
    assert(__atomic_exchange_n(&old->taken, 1, __ATOMIC_SEQ_CST) == 0);
    return old;
}

static void push(struct node *n) {
    __atomic_store_n(&n->taken, 0, __ATOMIC_SEQ_CST);
    struct node *old = __atomic_load_n(&top, __ATOMIC_SEQ_CST);
    do {
        __atomic_store_n(&n->next, old, __ATOMIC_RELAXED);
    } while (!__atomic_compare_exchange_n(&top, &old, n, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
}

static void *recycler(void *arg) {
    (void)arg;
    struct node *a = pop();
    struct node *b = pop();
    if (a)
        push(a);
    (void)b;
    return NULL;
}

static void *taker(void *arg) {
    (void)arg;
    pop();
    pop();
    return NULL;
}

int main(void) {
    pool[0].next = &pool[1];
    pool[1].next = &pool[2];
    top = &pool[0];
    pthread_t t1, t2;
    pthread_create(&t1, NULL, recycler, NULL);
    pthread_create(&t2, NULL, taker, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    return 0;
}
