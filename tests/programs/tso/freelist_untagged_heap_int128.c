// expect-sc: fail assertion
// why: freelist_tagged_heap_int128.c with the counter always 0: the pointer still travels packed in an `unsigned __int128` (so this fails for the ABA interleaving, not for a lost pointer), and the stale compare-exchange succeeds on a head that was popped and pushed back meanwhile, handing out a node in use, under SC and x86-TSO.
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

struct node {
    struct node *next;
    int taken;
};

typedef unsigned __int128 head_t;

static head_t list;

static head_t pack(struct node *top, uint64_t tag) {
    return (head_t)(uintptr_t)top | (head_t)tag << 64;
}

static struct node *top_of(head_t h) { return (struct node *)(uintptr_t)(uint64_t)h; }

static struct node *pop(void) {
    head_t old = __atomic_load_n(&list, __ATOMIC_SEQ_CST);
    head_t new;
    do {
        if (top_of(old) == NULL)
            return NULL;
        new = pack(__atomic_load_n(&top_of(old)->next, __ATOMIC_RELAXED), 0);
    } while (!__atomic_compare_exchange_n(&list, &old, new, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    /* No two owners at once: a node handed out twice is the ABA bug. */
    assert(__atomic_exchange_n(&top_of(old)->taken, 1, __ATOMIC_SEQ_CST) == 0);
    return top_of(old);
}

static void push(struct node *n) {
    __atomic_store_n(&n->taken, 0, __ATOMIC_SEQ_CST);
    head_t old = __atomic_load_n(&list, __ATOMIC_SEQ_CST);
    do {
        __atomic_store_n(&n->next, top_of(old), __ATOMIC_RELAXED);
    } while (!__atomic_compare_exchange_n(&list, &old, pack(n, 0), 0, __ATOMIC_SEQ_CST,
                                          __ATOMIC_SEQ_CST));
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
    /* The nodes are reachable only through the packed head and their links. */
    for (int i = 0; i < 3; i++) {
        struct node *n = malloc(sizeof(struct node));
        assert(n != NULL);
        push(n);
    }
    pthread_t t1, t2;
    pthread_create(&t1, NULL, recycler, NULL);
    pthread_create(&t2, NULL, taker, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    for (struct node *n = pop(); n != NULL; n = pop())
        free(n);
    return 0;
}
