// expect-sc: fail data-race
// check-args: --races deny
// why: the producer writes the data after it signalled and unlocked
#include <pthread.h>
int data, ready;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
void *producer(void *a) {
    pthread_mutex_lock(&m);
    ready = 1;
    pthread_cond_signal(&c);
    pthread_mutex_unlock(&m);
    data = 42;
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
    return v >= 0 ? 0 : 1;
}
