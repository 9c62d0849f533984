// expect-sc: pass
// why: three threads increment a counter with __sync_fetch_and_add (locked RMW); no update is lost under SC or TSO.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

volatile int counter;

static void *work(void *arg) {
    (void)arg;
    __sync_fetch_and_add(&counter, 1);
    __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
    return NULL;
}

int main(void) {
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    assert(counter == 6);
    return 0;
}
