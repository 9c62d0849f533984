// expect-sc: fail assertion
// expect-tso: fail non-terminating
// why: Szymanski's algorithm for two threads (flag values 0..4), broken even under SC: the entry wait on lower-numbered threads is missing, so thread 1 can enter while thread 0 is inside. Under x86-TSO a buffered flag store also lets both threads wait at line 32 for each other forever: that hang is the shorter counterexample.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#ifndef ITERS /* entries per thread; the benchmark builds with -DITERS=N */
#define ITERS 1
#endif
volatile int flag[2];
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
        flag[i] = 1;
        while (flag[j] >= 3) /* wait for the door to open */
            ;
        flag[i] = 3;
        if (flag[j] == 1) { /* someone in the waiting room: wait for it to enter */
            flag[i] = 2;
            while (flag[j] != 4)
                ;
        }
        flag[i] = 4;
        /* BUG: missing "wait until every lower thread has flag < 2" */
        critical_section();
        if (i == 0) {
            int f;
            do {
                f = flag[1]; /* read once: the test is on one value */
            } while (f == 2 || f == 3);
        }
        flag[i] = 0;
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
