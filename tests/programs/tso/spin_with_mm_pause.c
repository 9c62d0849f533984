// expect-sc: pass
// why: a spin loop with the _mm_pause() hint waits for a seq_cst flag; the data written before the flag is seen after it.
#include <assert.h>
#include <emmintrin.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

static atomic_int flag;
static int data;

static void *writer(void *arg) {
    (void)arg;
    data = 42;
    atomic_store(&flag, 1);
    return NULL;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, NULL, writer, NULL);
    while (!atomic_load(&flag))
        _mm_pause();
    assert(data == 42);
    pthread_join(t, NULL);
    return 0;
}
