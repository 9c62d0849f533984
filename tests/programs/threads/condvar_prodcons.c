// expect-sc: pass
// why: producer/consumer over a one-slot buffer with a mutex and two condition variables delivers 1,2 in order.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

#define ITEMS 2

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
int slot;
int full;
int received[ITEMS];

static void *producer(void *arg) {
    (void)arg;
    for (int k = 1; k <= ITEMS; k++) {
        pthread_mutex_lock(&lock);
        while (full)
            pthread_cond_wait(&not_full, &lock);
        slot = k;
        full = 1;
        pthread_cond_signal(&not_empty);
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

static void *consumer(void *arg) {
    (void)arg;
    for (int k = 0; k < ITEMS; k++) {
        pthread_mutex_lock(&lock);
        while (!full)
            pthread_cond_wait(&not_empty, &lock);
        received[k] = slot;
        full = 0;
        pthread_cond_signal(&not_full);
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(void) {
    pthread_t p, c;
    pthread_create(&c, NULL, consumer, NULL);
    pthread_create(&p, NULL, producer, NULL);
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    for (int k = 0; k < ITEMS; k++)
        assert(received[k] == k + 1);
    return 0;
}
