// expect-sc: fail pthread-misuse
// why: destroying a mutex that is still locked is pthread misuse.
#include <pthread.h>

int main(void) {
    pthread_mutex_t m;
    pthread_mutex_init(&m, NULL);
    pthread_mutex_lock(&m);
    pthread_mutex_destroy(&m);
    return 0;
}
