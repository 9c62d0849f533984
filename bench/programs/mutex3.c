// expect-sc: pass
// why: benchmark: three threads increment a shared counter three times each under a pthread mutex.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

#define THREADS 3
#define ROUNDS 3

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
int counter;
int per_thread[THREADS];

static void *work(void *arg) {
    int me = (int)(long)arg;
    for (int k = 0; k < ROUNDS; k++) {
        pthread_mutex_lock(&lock);
        int v = counter;
        counter = v + 1;
        pthread_mutex_unlock(&lock);
        per_thread[me]++;
    }
    return NULL;
}

int main(void) {
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, work, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    assert(counter == THREADS * ROUNDS);
    for (int i = 0; i < THREADS; i++)
        assert(per_thread[i] == ROUNDS);
    return 0;
}
