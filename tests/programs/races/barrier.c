// expect-sc: pass
// check-args: --races deny
// why: a write before the barrier is read by the other thread after it
#include <pthread.h>
int x;
pthread_barrier_t b;
void *writer(void *a) {
    x = 1;
    pthread_barrier_wait(&b);
    pthread_barrier_wait(&b);
    x = 2;
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_barrier_init(&b, 0, 2);
    pthread_create(&t, 0, writer, 0);
    pthread_barrier_wait(&b);
    int v = x;
    pthread_barrier_wait(&b);
    pthread_join(t, 0);
    return v == 1 ? 0 : 1;
}
