// expect-sc: fail deadlock
// error-contains: waits for rwlock `l`, held by thread
// why: a writer holding an rwlock waits for a mutex whose holder waits to read-lock the rwlock, while another thread spins.
#include <pthread.h>

pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
volatile int stop; /* never set: the spinner runs until the process ends */
int shared;

static void *writer(void *arg) {
    (void)arg;
    pthread_rwlock_wrlock(&l);
    pthread_mutex_lock(&m);
    shared = 1;
    pthread_mutex_unlock(&m);
    pthread_rwlock_unlock(&l);
    return 0;
}

static void *reader(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    pthread_rwlock_rdlock(&l);
    int v = shared;
    (void)v;
    pthread_rwlock_unlock(&l);
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
    pthread_t s, a, b;
    pthread_create(&s, 0, spinner, 0);
    pthread_create(&a, 0, writer, 0);
    pthread_create(&b, 0, reader, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
}
