// expect-sc: pass
// why: three threads race to pthread_once; the initialiser runs exactly once and everyone sees its effect.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

pthread_once_t once = PTHREAD_ONCE_INIT;
int init_calls;
int config;

static void init(void) {
    init_calls++;
    config = 42;
}

static void *work(void *arg) {
    (void)arg;
    pthread_once(&once, init);
    assert(config == 42);
    return NULL;
}

int main(void) {
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    assert(init_calls == 1);
    return 0;
}
