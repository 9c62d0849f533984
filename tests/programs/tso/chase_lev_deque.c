// expect-sc: pass
// why: a Chase-Lev work-stealing deque (owner pushes and takes at the bottom, a thief steals at the top with a CAS) with the seq_cst fence in take between publishing the new bottom and reading top: every pushed item is taken or stolen exactly once, under x86-TSO too.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#define SIZE 4
#define EMPTY (-1)

volatile long top, bottom;
volatile int items[SIZE];
int got[2];

static void push(int v) {
    long b = bottom;
    items[b % SIZE] = v;
    bottom = b + 1;
}

static int take(void) {
    long b = bottom - 1;
    bottom = b;
    atomic_thread_fence(memory_order_seq_cst);
    long t = top;
    if (t > b) {
        bottom = b + 1;
        return EMPTY;
    }
    int v = items[b % SIZE];
    if (t == b) {
        if (!__sync_bool_compare_and_swap(&top, t, t + 1))
            v = EMPTY;
        bottom = b + 1;
    }
    return v;
}

static int steal(void) {
    long t = top;
    long b = bottom;
    if (t >= b)
        return EMPTY;
    int v = items[t % SIZE];
    if (!__sync_bool_compare_and_swap(&top, t, t + 1))
        return EMPTY;
    return v;
}

static void *thief(void *arg) {
    (void)arg;
    for (int k = 0; k < 2; k++) {
        int v = steal();
        if (v != EMPTY)
            got[v]++;
    }
    return NULL;
}

int main(void) {
    pthread_t th;
    push(0);
    push(1);
    pthread_create(&th, NULL, thief, NULL);
    int v = take();
    if (v != EMPTY)
        got[v]++;
    pthread_join(th, NULL);
    assert(got[0] <= 1 && got[1] <= 1);
    return 0;
}
