// expect-sc: fail non-terminating
// error-contains: infinite loop
// why: a slab allocator's lock-free free list with the ABA bug: a pop's CAS succeeds on a head that was popped and pushed back meanwhile, and a block still in use goes back to the list, which becomes cyclic; main alone then drains the list forever (`while (slab_alloc())`), a loop caught when it closes, not by the instruction budget.
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#define BLOCKS 3

struct block {
    struct block *_Atomic next;
    int payload;
};

static struct block slab[BLOCKS];
static struct block *_Atomic free_list;

static void slab_init(void) {
    for (int i = 0; i < BLOCKS; i++)
        atomic_store(&slab[i].next, i + 1 < BLOCKS ? &slab[i + 1] : NULL);
    atomic_store(&free_list, &slab[0]);
}

/* Treiber pop without a tag: the CAS only checks that the head is the same block. */
static struct block *slab_alloc(void) {
    struct block *head = atomic_load(&free_list);
    while (head) {
        struct block *next = atomic_load(&head->next);
        if (atomic_compare_exchange_weak(&free_list, &head, next))
            return head;
    }
    return NULL;
}

static void slab_free(struct block *b) {
    struct block *head = atomic_load(&free_list);
    do
        atomic_store(&b->next, head);
    while (!atomic_compare_exchange_weak(&free_list, &head, b));
}

static void *one_block(void *arg) {
    (void)arg;
    struct block *b = slab_alloc();
    if (b)
        slab_free(b);
    return 0;
}

static void *two_blocks(void *arg) {
    (void)arg;
    struct block *a = slab_alloc();
    struct block *b = slab_alloc();
    if (a)
        slab_free(a);
    if (b)
        slab_free(b);
    return 0;
}

int main(void) {
    slab_init();
    pthread_t t1, t2;
    pthread_create(&t1, 0, one_block, 0);
    pthread_create(&t2, 0, two_blocks, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    /* Empty the slab: ends after BLOCKS blocks unless the list is cyclic. */
    while (slab_alloc())
        ;
    return 0;
}
