// expect-sc: pass
// expect-tso: pass
// why: benchmark shaped like a user's test: a reader-writer spinlock (one atomic word: -1 while a writer holds it, else the number of readers); three readers and two writers enter once each, and each reader checks it sees a consistent pair.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#ifndef READERS
#define READERS 3
#endif
#ifndef WRITERS
#define WRITERS 2
#endif

static atomic_int state;
static int a, b;

static void read_lock(void) {
    for (;;) {
        int v = atomic_load(&state);
        if (v >= 0 && atomic_compare_exchange_weak(&state, &v, v + 1))
            return;
    }
}

static void read_unlock(void) { atomic_fetch_sub(&state, 1); }

static void write_lock(void) {
    for (;;) {
        int expected = 0;
        if (atomic_compare_exchange_weak(&state, &expected, -1))
            return;
    }
}

static void write_unlock(void) { atomic_store(&state, 0); }

static void *reader(void *arg) {
    (void)arg;
    read_lock();
    int x = a, y = b;
    assert(x == y);
    read_unlock();
    return NULL;
}

static void *writer(void *arg) {
    int v = (int)(long)arg;
    write_lock();
    a = v;
    b = v;
    write_unlock();
    return NULL;
}

int main(void) {
    pthread_t r[READERS], w[WRITERS];
    for (long i = 0; i < WRITERS; i++)
        pthread_create(&w[i], NULL, writer, (void *)(i + 1));
    for (int i = 0; i < READERS; i++)
        pthread_create(&r[i], NULL, reader, NULL);
    for (int i = 0; i < WRITERS; i++)
        pthread_join(w[i], NULL);
    for (int i = 0; i < READERS; i++)
        pthread_join(r[i], NULL);
    assert(a == b && a != 0);
    return 0;
}
