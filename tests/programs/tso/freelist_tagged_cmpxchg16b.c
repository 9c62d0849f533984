// expect-sc: pass
// why: a lock-free free list whose head is a pointer and a counter compare-exchanged together as 16 bytes (`lock cmpxchg16b`): every update bumps the counter, so the stale compare-exchange of the ABA interleaving fails and no node is handed out twice, under SC and x86-TSO (compare freelist_untagged_aba.c and freelist_tag_not_bumped.c).
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stddef.h>

struct node {
    struct node *next;
    int taken;
};

struct head {
    struct node *top;
    uintptr_t tag;
} __attribute__((aligned(16)));

static struct node pool[3];
static struct head list;

static struct node *pop(void) {
    struct head old, new;
    __atomic_load(&list, &old, __ATOMIC_SEQ_CST);
    do {
        if (old.top == NULL)
            return NULL;
        new.top = __atomic_load_n(&old.top->next, __ATOMIC_RELAXED);
        new.tag = old.tag + 1;
    } while (!__atomic_compare_exchange(&list, &old, &new, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    /* No two owners at once: a node handed out twice is the ABA bug. */
    assert(__atomic_exchange_n(&old.top->taken, 1, __ATOMIC_SEQ_CST) == 0);
    return old.top;
}

static void push(struct node *n) {
    struct head old, new;
    __atomic_store_n(&n->taken, 0, __ATOMIC_SEQ_CST);
    __atomic_load(&list, &old, __ATOMIC_SEQ_CST);
    do {
        __atomic_store_n(&n->next, old.top, __ATOMIC_RELAXED);
        new.top = n;
        new.tag = old.tag + 1;
    } while (!__atomic_compare_exchange(&list, &old, &new, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
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
    list.top = &pool[0];
    pthread_t t1, t2;
    pthread_create(&t1, NULL, recycler, NULL);
    pthread_create(&t2, NULL, taker, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    return 0;
}
