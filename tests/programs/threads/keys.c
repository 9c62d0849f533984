// expect-sc: pass
// why: thread-specific data: each thread sees only its own value and the key's destructor frees it at thread exit.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

pthread_key_t key;
volatile int destructor_calls;

static void release(void *value) {
    __sync_fetch_and_add(&destructor_calls, 1);
    free(value);
}

static void *work(void *arg) {
    int me = (int)(long)arg;
    assert(pthread_getspecific(key) == NULL);
    int *mine = malloc(sizeof *mine);
    if (!mine)
        return NULL;
    *mine = me;
    pthread_setspecific(key, mine);
    int *back = pthread_getspecific(key);
    assert(back == mine && *back == me);
    return NULL;
}

int main(void) {
    pthread_t t[2];
    pthread_key_create(&key, release);
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, work, (void *)(i + 1));
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert(pthread_getspecific(key) == NULL);
    assert(destructor_calls == 2);
    pthread_key_delete(key);
    return 0;
}
