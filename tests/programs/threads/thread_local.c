// expect-sc: pass
// why: each thread has its own copy of a _Thread_local variable; updates by one thread are invisible to the others.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

_Thread_local int counter = 10;

static void *work(void *arg) {
    int me = (int)(long)arg;
    assert(counter == 10);
    counter += me;
    counter += me;
    assert(counter == 10 + 2 * me);
    return NULL;
}

int main(void) {
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, work, (void *)(i + 1));
    counter = 0;
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert(counter == 0);
    return 0;
}
