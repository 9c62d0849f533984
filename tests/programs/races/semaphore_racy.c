// expect-sc: fail data-race
// check-args: --races deny
// why: the producer writes after its sem_post, so nothing orders the write before the consumer's read
#include <pthread.h>
#include <semaphore.h>
int data;
sem_t ready;
void *producer(void *a) {
    sem_post(&ready);
    data = 42;
    return 0;
}
int main(void) {
    pthread_t t;
    sem_init(&ready, 0, 0);
    pthread_create(&t, 0, producer, 0);
    sem_wait(&ready);
    int d = data;
    pthread_join(t, 0);
    return d == 7;
}
