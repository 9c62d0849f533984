// expect-sc: fail assertion
// why: two threads do an unsynchronised load-add-store on a counter; an interleaving loses an update.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

volatile int counter;

static void *work(void *arg) {
    (void)arg;
    int v = counter;
    counter = v + 1;
    return NULL;
}

int main(void) {
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert(counter == 2);
    return 0;
}
