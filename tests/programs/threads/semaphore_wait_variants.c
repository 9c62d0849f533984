// expect-sc: pass
// why: sem_trywait fails with EAGAIN while the count is zero, sem_timedwait either takes the post or times out with ETIMEDOUT (semaphore_timedwait_*.c show that both happen), sem_getvalue reads the count, and a semaphore initialised to 2 lets two threads into a section that holds at most two.
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <time.h>

static sem_t posted, slots;
static int data, inside;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *poster(void *arg) {
    (void)arg;
    data = 1;
    sem_post(&posted);
    return NULL;
}

static void *user(void *arg) {
    (void)arg;
    sem_wait(&slots);
    pthread_mutex_lock(&m);
    inside++;
    assert(inside <= 2);
    pthread_mutex_unlock(&m);
    pthread_mutex_lock(&m);
    inside--;
    pthread_mutex_unlock(&m);
    sem_post(&slots);
    return NULL;
}

int main(void) {
    sem_init(&posted, 0, 0);
    sem_init(&slots, 0, 2);
    assert(sem_trywait(&posted) == -1 && errno == EAGAIN);
    pthread_t p, u[3];
    pthread_create(&p, NULL, poster, NULL);
    struct timespec ts = {0, 0};
    if (sem_timedwait(&posted, &ts) == 0)
        assert(data == 1);
    else
        assert(errno == ETIMEDOUT);
    pthread_join(p, NULL);
    for (int i = 0; i < 3; i++)
        pthread_create(&u[i], NULL, user, NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(u[i], NULL);
    int v;
    sem_getvalue(&slots, &v);
    assert(v == 2);
    return 0;
}
