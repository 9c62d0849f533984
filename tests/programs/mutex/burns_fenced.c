// expect-sc: pass
// why: Burns' (Burns-Lynch) one-bit mutual exclusion for two threads with an mfence after each store raising a flag is correct under x86-TSO too.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#ifndef ITERS /* entries per thread; the benchmark builds with -DITERS=N */
#define ITERS 1
#endif
#define MFENCE() __asm__ __volatile__("mfence" ::: "memory")
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
        if (i == 0) {
            flag[0] = 1;
            MFENCE();
            while (flag[1] != 0)
                ;
        } else {
            for (;;) {
                flag[1] = 0;
                while (flag[0] != 0)
                    ;
                flag[1] = 1;
                MFENCE();
                if (flag[0] == 0)
                    break;
            }
        }
        critical_section();
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
