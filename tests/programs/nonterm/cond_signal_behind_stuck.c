// expect-sc: fail deadlock
// check-args: --allow-nontermination
// error-contains: signal on condition variable
// why: a condition wait needs some thread that can still act; a stuck thread never signals, so a waiter whose only possible signaller is stuck stays a deadlock (a lost wakeup must not hide behind an unrelated endless loop).
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
int ready;
volatile int never;

static void *spinner(void *arg) {
    (void)arg;
    int seen = never;
    while (!seen) {
    }
    return 0;
}

int main(void) {
    pthread_t s;
    pthread_create(&s, 0, spinner, 0);
    pthread_mutex_lock(&m);
    while (!ready)
        pthread_cond_wait(&c, &m);
    pthread_mutex_unlock(&m);
    return 0;
}
