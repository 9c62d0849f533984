// expect-sc: fail pthread-misuse
// why: a thread unlocking a PTHREAD_MUTEX_ERRORCHECK mutex held by main is pthread misuse.
#include <pthread.h>
#include <stddef.h>

pthread_mutex_t m;

static void *intruder(void *arg) {
    (void)arg;
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void) {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&m, &attr);
    pthread_mutex_lock(&m);
    pthread_t t;
    pthread_create(&t, NULL, intruder, NULL);
    pthread_join(t, NULL);
    pthread_mutex_unlock(&m);
    return 0;
}
