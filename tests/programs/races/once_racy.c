// expect-sc: fail data-race
// check-args: --races deny
// why: one thread reads the configuration without calling pthread_once
#include <pthread.h>
int config;
pthread_once_t once = PTHREAD_ONCE_INIT;
void init(void) { config = 7; }
void *user(void *a) {
    pthread_once(&once, init);
    return (void *)(long)config;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, user, 0);
    int v = config;
    pthread_join(t, 0);
    return v >= 0 ? 0 : 1;
}
