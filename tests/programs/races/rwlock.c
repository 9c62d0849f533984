// expect-sc: pass
// check-args: --races deny
// why: readers read under rdlock, the writer writes under wrlock
#include <pthread.h>
int value;
pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
void *reader(void *a) {
    pthread_rwlock_rdlock(&l);
    int v = value;
    pthread_rwlock_unlock(&l);
    return (void *)(long)v;
}
void *writer(void *a) {
    pthread_rwlock_wrlock(&l);
    value++;
    pthread_rwlock_unlock(&l);
    return 0;
}
int main(void) {
    pthread_t r1, r2, w;
    pthread_create(&r1, 0, reader, 0);
    pthread_create(&w, 0, writer, 0);
    pthread_create(&r2, 0, reader, 0);
    pthread_join(r1, 0);
    pthread_join(w, 0);
    pthread_join(r2, 0);
    return 0;
}
