// expect-sc: fail assertion
// why: like rwlock.c but the reader skips the lock, so it can see the writer's update half done.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
volatile int a, b;

static void *writer(void *arg) {
    (void)arg;
    pthread_rwlock_wrlock(&rw);
    a = 1;
    b = 1;
    pthread_rwlock_unlock(&rw);
    return NULL;
}

static void *reader(void *arg) {
    (void)arg;
    int x = a; /* BUG: no rdlock */
    int y = b;
    assert(x == y);
    return NULL;
}

int main(void) {
    pthread_t w, r;
    pthread_create(&w, NULL, writer, NULL);
    pthread_create(&r, NULL, reader, NULL);
    pthread_join(w, NULL);
    pthread_join(r, NULL);
    return 0;
}
