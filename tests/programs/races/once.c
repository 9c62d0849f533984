// expect-sc: pass
// check-args: --races deny
// why: both threads read what the once routine wrote, after pthread_once
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
    pthread_once(&once, init);
    int v = config;
    pthread_join(t, 0);
    return v == 7 ? 0 : 1;
}
