// expect-sc: pass
// expect-tso: fail assertion
// why: Dekker's algorithm for two threads is correct under SC but not under x86-TSO: the flag store can still be buffered when each thread reads the other flag as 0.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#ifndef ITERS /* entries per thread; the benchmark builds with -DITERS=N */
#define ITERS 1
#endif
volatile int flag[2];
volatile int turn;
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
        while (flag[j] != 0) {
            if (turn != i) {
                flag[i] = 0;
                while (turn != i)
                    ;
                flag[i] = 1;
            }
        }
        critical_section();
        turn = j;
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
