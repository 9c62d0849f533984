// expect-sc: pass
// why: control: the same threads take both mutexes in one order while a third spins; no thread waits forever, so no deadlock is reported.
#include <pthread.h>

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
volatile int stop; /* never set: the spinner runs until the process ends */
int shared;

static void *worker(void *arg) {
    (void)arg;
    pthread_mutex_lock(&a);
    pthread_mutex_lock(&b);
    shared++;
    pthread_mutex_unlock(&b);
    pthread_mutex_unlock(&a);
    return 0;
}

static void *spinner(void *arg) {
    (void)arg;
    while (!stop) {
    }
    return 0;
}

int main(void) {
    pthread_t s, t1, t2;
    pthread_create(&s, 0, spinner, 0);
    pthread_create(&t1, 0, worker, 0);
    pthread_create(&t2, 0, worker, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    return 0;
}
