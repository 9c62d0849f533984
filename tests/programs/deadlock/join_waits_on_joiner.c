// expect-sc: fail deadlock
// error-contains: holds mutex `m` and waits for thread 2 to finish
// why: main joins a thread that waits for a mutex main holds, while another thread spins: main and the thread wait for each other.
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
volatile int stop; /* never set: the spinner runs until the process ends */

static void *worker(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
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
    pthread_mutex_lock(&m);
    pthread_create(&t, 0, worker, 0);
    pthread_join(t, 0);
    pthread_mutex_unlock(&m);
    return 0;
}
