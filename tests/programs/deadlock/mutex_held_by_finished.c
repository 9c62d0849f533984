// expect-sc: fail deadlock
// error-contains: waits for mutex `m`, held by thread 2, which has finished
// why: a thread returns still holding a mutex; main then blocks on it forever, although another thread is still spinning.
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
volatile int stop; /* never set: the spinner runs until the process ends */

static void *leaker(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    return 0;
}

static void *spinner(void *arg) {
    (void)arg;
    while (!stop) {
    }
    return 0;
}

int main(void) {
    pthread_t s, t;
    pthread_create(&s, 0, spinner, 0);
    pthread_create(&t, 0, leaker, 0);
    pthread_join(t, 0);
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    return 0;
}
