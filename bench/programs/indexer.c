// expect-sc: pass
// why: benchmark in the style of SV-COMP "indexer": threads insert keys into a shared open-addressing hash table, claiming slots with CAS.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

#define THREADS 3
#define KEYS_PER_THREAD 2
#define SIZE 8 /* power of two, larger than THREADS * KEYS_PER_THREAD */

volatile int table[SIZE]; /* 0 = empty slot */

static unsigned hash(int key) {
    return (unsigned)key & 3u; /* only 4 home slots: keys k and k+4 collide */
}

static void insert(int key) {
    unsigned h = hash(key);
    for (;;) {
        int old = __sync_val_compare_and_swap(&table[h], 0, key);
        if (old == 0 || old == key)
            return;
        h = (h + 1) & (SIZE - 1); /* linear probing */
    }
}

static void *work(void *arg) {
    int me = (int)(long)arg;
    for (int k = 0; k < KEYS_PER_THREAD; k++)
        /* keys 1..6: thread 0 inserts 1,4; thread 1 inserts 2,5; thread 2 inserts 3,6 */
        insert(me + 1 + k * THREADS);
    return NULL;
}

int main(void) {
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, work, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    int seen[THREADS * KEYS_PER_THREAD + 1] = {0};
    for (int s = 0; s < SIZE; s++) {
        int key = table[s];
        assert(key >= 0 && key <= THREADS * KEYS_PER_THREAD);
        if (key != 0)
            seen[key]++;
    }
    for (int key = 1; key <= THREADS * KEYS_PER_THREAD; key++)
        assert(seen[key] == 1);
    return 0;
}
