// expect-sc: pass
// why: a writer updates two fields under a write lock; two readers under read locks always see them equal.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
int a, b;

static void *writer(void *arg) {
    (void)arg;
    for (int k = 1; k <= 2; k++) {
        pthread_rwlock_wrlock(&rw);
        a = k;
        b = k;
        pthread_rwlock_unlock(&rw);
    }
    return NULL;
}

static void *reader(void *arg) {
    (void)arg;
    pthread_rwlock_rdlock(&rw);
    int x = a;
    int y = b;
    pthread_rwlock_unlock(&rw);
    assert(x == y);
    return NULL;
}

int main(void) {
    pthread_t w, r1, r2;
    pthread_create(&r1, NULL, reader, NULL);
    pthread_create(&w, NULL, writer, NULL);
    pthread_create(&r2, NULL, reader, NULL);
    pthread_join(w, NULL);
    pthread_join(r1, NULL);
    pthread_join(r2, NULL);
    assert(a == 2 && b == 2);
    pthread_rwlock_destroy(&rw);
    return 0;
}
