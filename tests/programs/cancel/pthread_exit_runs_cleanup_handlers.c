// expect-sc: pass
// why: pthread_exit runs the registered cleanup handlers (innermost first) and then the key destructors, and the joiner gets the value passed to pthread_exit.
#include <assert.h>
#include <pthread.h>

pthread_key_t key;
int order[4];
int ran;

static void record(void *arg) {
    order[ran++] = (int)(long)arg;
}

static void *worker(void *arg) {
    (void)arg;
    pthread_setspecific(key, (void *)3);
    pthread_cleanup_push(record, (void *)1);
    pthread_cleanup_push(record, (void *)2);
    pthread_exit((void *)7);
    pthread_cleanup_pop(0);
    pthread_cleanup_pop(0);
    return 0;
}

int main(void) {
    pthread_t t;
    void *r;
    pthread_key_create(&key, record);
    pthread_create(&t, 0, worker, 0);
    pthread_join(t, &r);
    assert(r == (void *)7);
    assert(ran == 3);
    assert(order[0] == 2 && order[1] == 1 && order[2] == 3);
    return 0;
}
