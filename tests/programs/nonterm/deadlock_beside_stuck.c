// expect-sc: fail deadlock
// check-args: --allow-nontermination
// error-contains: wait for each other
// why: a thread stuck in an endless loop does not excuse a real circular wait between two others: waiting behind a stuck thread is non-termination, a lock-order cycle is still a deadlock.
#include <pthread.h>

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
volatile int never;

static void *spinner(void *arg) {
    (void)arg;
    int seen = never;
    while (!seen) {
    }
    return 0;
}

static void *ab(void *arg) {
    (void)arg;
    pthread_mutex_lock(&a);
    pthread_mutex_lock(&b);
    pthread_mutex_unlock(&b);
    pthread_mutex_unlock(&a);
    return 0;
}

static void *ba(void *arg) {
    (void)arg;
    pthread_mutex_lock(&b);
    pthread_mutex_lock(&a);
    pthread_mutex_unlock(&a);
    pthread_mutex_unlock(&b);
    return 0;
}

int main(void) {
    pthread_t s, t1, t2;
    pthread_create(&s, 0, spinner, 0);
    pthread_create(&t1, 0, ab, 0);
    pthread_create(&t2, 0, ba, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    pthread_join(s, 0);
    return 0;
}
