// expect-sc: fail deadlock
// error-contains: waits for mutex `b`, held by thread
// why: two threads take two mutexes in opposite orders while a third thread spins forever: the circular wait is a deadlock although not every thread is blocked.
#include <pthread.h>

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
volatile int stop; /* never set: the spinner runs until the process ends */
int shared;

static void *forward(void *arg) {
    (void)arg;
    pthread_mutex_lock(&a);
    pthread_mutex_lock(&b);
    shared++;
    pthread_mutex_unlock(&b);
    pthread_mutex_unlock(&a);
    return 0;
}

static void *backward(void *arg) {
    (void)arg;
    pthread_mutex_lock(&b);
    pthread_mutex_lock(&a);
    shared--;
    pthread_mutex_unlock(&a);
    pthread_mutex_unlock(&b);
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
    pthread_create(&t1, 0, forward, 0);
    pthread_create(&t2, 0, backward, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    return 0;
}
