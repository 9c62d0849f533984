// expect-sc: fail data-race
// check-args: --races deny
// why: the reader reads before the barrier, the writer writes before it too
#include <pthread.h>
int x;
pthread_barrier_t b;
void *writer(void *a) {
    x = 1;
    pthread_barrier_wait(&b);
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_barrier_init(&b, 0, 2);
    pthread_create(&t, 0, writer, 0);
    int v = x;
    pthread_barrier_wait(&b);
    pthread_join(t, 0);
    return v >= 0 ? 0 : 1;
}
