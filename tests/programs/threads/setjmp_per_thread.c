// expect-sc: fail assertion
// why: two threads each setjmp/longjmp on their own jmp_buf, while racing on a shared counter.
#include <assert.h>
#include <pthread.h>
#include <setjmp.h>

static int counter;

static void *worker(void *arg) {
    jmp_buf env;
    volatile int round = 0;
    if (setjmp(env) < 2) {
        round++;
        int seen = counter;
        counter = seen + 1;
        longjmp(env, round);
    }
    return arg;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, worker, 0);
    pthread_create(&b, 0, worker, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    assert(counter == 4);
    return 0;
}
