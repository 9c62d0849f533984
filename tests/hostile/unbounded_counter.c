// A counter that grows forever while another thread can read it. Under TSO with an
// unbounded store buffer (--sb-bound 0) every increment is a new buffer entry, so
// the state space is infinite and only a limit can end the search.
#include <pthread.h>
#include <stdio.h>
volatile long counter;
static void *reader(void *arg) {
    (void)arg;
    printf("%ld\n", counter);
    return NULL;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, NULL, reader, NULL);
    for (;;) counter = counter + 1;
    return 0;
}
