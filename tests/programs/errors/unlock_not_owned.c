// expect-sc: fail pthread-misuse
// why: unlocking a PTHREAD_MUTEX_ERRORCHECK mutex the thread does not hold (it was never locked) is pthread misuse.
#include <pthread.h>

int main(void) {
    pthread_mutexattr_t attr;
    pthread_mutex_t m;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&m, &attr);
    pthread_mutex_unlock(&m);
    pthread_mutex_destroy(&m);
    return 0;
}
