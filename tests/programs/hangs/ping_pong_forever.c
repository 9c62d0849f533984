// expect-sc: fail non-terminating
// error-contains: can never end
// why: two threads ping-pong a turn forever: each waits for its turn and hands it over, in a loop with no exit; every state is on that cycle, so the program can never end.
#include <pthread.h>
#include <stdatomic.h>

atomic_int turn;

static void *ping(void *arg) {
    (void)arg;
    for (;;) {
        while (atomic_load(&turn) != 0) {
        }
        atomic_store(&turn, 1);
    }
    return 0;
}

static void *pong(void *arg) {
    (void)arg;
    for (;;) {
        while (atomic_load(&turn) != 1) {
        }
        atomic_store(&turn, 0);
    }
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, ping, 0);
    pthread_create(&b, 0, pong, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
}
