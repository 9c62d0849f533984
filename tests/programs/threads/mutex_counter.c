// expect-sc: pass
// why: three threads increment a shared counter twice each under a pthread mutex; no update is lost.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

#define THREADS 3
#define ROUNDS 2

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
int counter;

static void *work(void *arg) {
    (void)arg;
    for (int k = 0; k < ROUNDS; k++) {
        pthread_mutex_lock(&lock);
        counter = counter + 1;
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(void) {
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    assert(counter == THREADS * ROUNDS);
    pthread_mutex_destroy(&lock);
    return 0;
}
