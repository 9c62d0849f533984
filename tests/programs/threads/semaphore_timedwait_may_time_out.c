// expect-sc: fail assertion
// why: sem_timedwait racing with a sem_post: a wait that is never posted in time times out: the assertion that it succeeds fails.
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <time.h>

static sem_t posted;

static void *poster(void *arg) {
    (void)arg;
    sem_post(&posted);
    return NULL;
}

int main(void) {
    sem_init(&posted, 0, 0);
    pthread_t p;
    pthread_create(&p, NULL, poster, NULL);
    struct timespec ts = {0, 0};
    assert(sem_timedwait(&posted, &ts) == 0);
    pthread_join(p, NULL);
    return 0;
}
