// expect-sc: pass
// why: message passing needs no fence on x86: stores leave the buffer in order, so a reader that sees the flag sees the data.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

volatile int data[2];
volatile int flag;

static void *producer(void *arg) {
    (void)arg;
    data[0] = 42;
    data[1] = 43;
    flag = 1;
    return NULL;
}

static void *consumer(void *arg) {
    (void)arg;
    while (flag == 0)
        ;
    assert(data[0] == 42);
    assert(data[1] == 43);
    return NULL;
}

int main(void) {
    pthread_t p, c;
    pthread_create(&c, NULL, consumer, NULL);
    pthread_create(&p, NULL, producer, NULL);
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    return 0;
}
