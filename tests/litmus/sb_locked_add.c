// SB with the locked no-op on the stack (`lock; addl $0,-4(%rsp)`, the full fence
// of Linux's smp_mb on x86-64) between the store and the load on both
// threads: a locked instruction drains the store buffer, so r0=0 r1=0 is
// forbidden under x86-TSO.
// Expected outcomes: sb_locked_add.expect (every printable combination, SC and TSO).
#include <pthread.h>
#include <stdio.h>

volatile int x, y;
int r0, r1;

static void *thread0(void *arg) {
    (void)arg;
    x = 1;
    __asm__ __volatile__("lock; addl $0,-4(%%rsp)" ::: "memory", "cc");
    r0 = y;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    y = 1;
    __asm__ __volatile__("lock; addl $0,-4(%%rsp)" ::: "memory", "cc");
    r1 = x;
    return NULL;
}

int main(void) {
    pthread_t t[2];
    void *(*body[2])(void *) = {thread0, thread1};
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, body[i], NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("r0=%d r1=%d\n", r0, r1);
    return 0;
}
