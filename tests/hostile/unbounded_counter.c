// A counter that grows forever while another thread runs beside it. Under TSO with an
// unbounded store buffer (--sb-bound 0) every increment is a new buffer entry, so the
// state space is infinite and only a limit can end the search. The other thread never
// stops (a writer left alone would loop invisibly, which the step limit reports
// instead) and reads another variable, so each state has few successors and the
// buffer, hence memory, grows quickly in any search order.
#include <pthread.h>
volatile long counter, other;
static void *reader(void *arg) {
    (void)arg;
    for (;;) (void)other;
    return NULL;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, NULL, reader, NULL);
    for (;;) counter = counter + 1;
    return 0;
}
