// expect-sc: pass
// why: the twin of join_of_spinner.c: `middle` sets the flag before joining, so the spinner (and both joins) can always finish.
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
    atomic_store(&go, 1);
    pthread_join(s, 0);
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, middle, 0);
    pthread_join(t, 0);
    return 0;
}
