// expect-sc: fail non-terminating
// error-contains: can never end
// why: a join chain ending in a spin: main joins `middle`, which joins `spinner`, which waits on a flag nobody sets; two threads blocked on joins behind one spinning thread are a hang, not a deadlock.
#include <pthread.h>
#include <stdatomic.h>

atomic_int go;

static void *spinner(void *arg) {
    (void)arg;
    while (!atomic_load(&go)) {
    }
    return 0;
}

static void *middle(void *arg) {
    (void)arg;
    pthread_t s;
    pthread_create(&s, 0, spinner, 0);
    pthread_join(s, 0);
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, middle, 0);
    pthread_join(t, 0);
    return 0;
}
