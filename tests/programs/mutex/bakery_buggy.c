// expect-sc: fail assertion
// why: Lamport's bakery algorithm for two threads, broken even under SC: without the choosing[] doorway both threads can take ticket 1 and the one with the lower id does not wait.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#ifndef ITERS /* entries per thread; the benchmark builds with -DITERS=N */
#define ITERS 1
#endif
volatile int choosing[2];
volatile int number[2];
/* Threads inside the critical section. Updated with locked RMWs so the
   check is exact under TSO too (a buffered plain counter could hide an overlap). */
volatile int in_cs;

static void critical_section(void) {
    int inside = __sync_add_and_fetch(&in_cs, 1);
    assert(inside == 1);
    __sync_sub_and_fetch(&in_cs, 1);
}

static void *worker(void *arg) {
    int i = (int)(long)arg;
    int j = 1 - i;
    (void)j;
    for (int k = 0; k < ITERS; k++) {
        int a = number[0], b = number[1];
        int mine = (a > b ? a : b) + 1;
        number[i] = mine;
        /* BUG: no choosing[] doorway: a thread still computing its ticket is not waited for */
        for (;;) {
            int other = number[j];
            if (other == 0 || other > mine || (other == mine && i < j))
                break;
        }
        critical_section();
        number[i] = 0;
    }
    return NULL;
}

int main(void) {
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return 0;
}
