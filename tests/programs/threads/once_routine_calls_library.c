// expect-sc: pass
// why: a pthread_once routine that itself calls library functions (a mutex, malloc) runs exactly once, and every caller returns after it finished.
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int *table;
static int inits;

static void init(void) {
    pthread_mutex_lock(&m);
    inits++;
    pthread_mutex_unlock(&m);
    table = malloc(sizeof *table);
    *table = 7;
}

static void *worker(void *arg) {
    (void)arg;
    pthread_once(&once, init);
    assert(*table == 7);
    return NULL;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_once(&once, init);
    assert(*table == 7);
    pthread_join(t, NULL);
    assert(inits == 1);
    free(table);
    return 0;
}
