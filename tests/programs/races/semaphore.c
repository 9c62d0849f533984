// expect-sc: pass
// check-args: --races deny
// why: data written before sem_post is read after the sem_wait that takes the post: post→wait orders them
#include <pthread.h>
#include <semaphore.h>
int data;
sem_t ready;
void *producer(void *a) {
    data = 42;
    sem_post(&ready);
    return 0;
}
int main(void) {
    pthread_t t;
    sem_init(&ready, 0, 0);
    pthread_create(&t, 0, producer, 0);
    sem_wait(&ready);
    int d = data;
    pthread_join(t, 0);
    sem_destroy(&ready);
    return d == 42 ? 0 : 1;
}
