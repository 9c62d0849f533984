// expect-sc: fail data-race
// check-args: --races deny
// why: two readers write under a read lock: read locks do not order each other
#include <pthread.h>
int value;
pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
void *reader(void *a) {
    pthread_rwlock_rdlock(&l);
    value++;
    pthread_rwlock_unlock(&l);
    return 0;
}
int main(void) {
    pthread_t r1, r2;
    pthread_create(&r1, 0, reader, 0);
    pthread_create(&r2, 0, reader, 0);
    pthread_join(r1, 0);
    pthread_join(r2, 0);
    return 0;
}
