// expect-sc: fail pthread-misuse
// why: joining the same thread twice is pthread misuse (the second join names a thread that no longer exists).
#include <pthread.h>
#include <stddef.h>

static void *work(void *arg) {
    return arg;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, NULL, work, NULL);
    pthread_join(t, NULL);
    pthread_join(t, NULL);
    return 0;
}
