// expect-sc: fail deadlock
// why: relocking a PTHREAD_MUTEX_NORMAL mutex the thread already holds blocks forever.
#include <pthread.h>

int main(void) {
    pthread_mutexattr_t attr;
    pthread_mutex_t m;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_NORMAL);
    pthread_mutex_init(&m, &attr);
    pthread_mutex_lock(&m);
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    return 0;
}
