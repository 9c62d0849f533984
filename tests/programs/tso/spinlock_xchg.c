// expect-sc: pass
// why: a test-and-set spinlock (locked xchg to acquire, plain store to release) is correct under x86-TSO; two threads, two rounds each.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

volatile int lock;
volatile int counter;

static void acquire(void) {
    while (__sync_lock_test_and_set(&lock, 1) != 0)
        while (lock != 0)
            ;
}

static void release(void) {
    __sync_lock_release(&lock); /* a plain store on x86 */
}

static void *work(void *arg) {
    (void)arg;
    for (int k = 0; k < 2; k++) {
        acquire();
        int v = counter;
        counter = v + 1;
        release();
    }
    return NULL;
}

int main(void) {
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert(counter == 4);
    return 0;
}
