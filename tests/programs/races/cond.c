// expect-sc: pass
// check-args: --races deny
// why: data written before the signal is read after the wake-up
#include <pthread.h>
int data, ready;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
void *producer(void *a) {
    data = 42;
    pthread_mutex_lock(&m);
    ready = 1;
    pthread_cond_signal(&c);
    pthread_mutex_unlock(&m);
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, producer, 0);
    pthread_mutex_lock(&m);
    while (!ready)
        pthread_cond_wait(&c, &m);
    pthread_mutex_unlock(&m);
    int v = data;
    pthread_join(t, 0);
    return v == 42 ? 0 : 1;
}
