// expect-sc: pass
// why: the twin of spin_flag_never_set.c: main sets the flag, so from every state of the spin the end is reachable (a cycle with an exit is not a hang).
#include <pthread.h>
#include <stdatomic.h>

atomic_int flag;

static void *waiter(void *arg) {
    (void)arg;
    while (!atomic_load(&flag)) {
    }
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, waiter, 0);
    atomic_store(&flag, 1);
    pthread_join(t, 0);
    return 0;
}
