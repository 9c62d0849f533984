// expect-sc: fail non-terminating
// error-contains: can never end
// why: a waiter spins on an atomic flag no thread ever sets while main joins it: every state after the spin starts is a cycle with no way to the end.
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
    pthread_join(t, 0);
    return 0;
}
