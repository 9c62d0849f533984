// expect-sc: fail deadlock
// why: the consumer waits for two posts and the producer posts once: the second sem_wait blocks forever.
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>

static sem_t items;

static void *producer(void *arg) {
    (void)arg;
    sem_post(&items);
    return NULL;
}

int main(void) {
    pthread_t t;
    sem_init(&items, 0, 0);
    pthread_create(&t, NULL, producer, NULL);
    sem_wait(&items);
    sem_wait(&items);
    pthread_join(t, NULL);
    return 0;
}
