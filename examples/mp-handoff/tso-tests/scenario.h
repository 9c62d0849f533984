/* One publisher thread, one receiver: a received message is the published one. */
#include <pthread.h>
#include <tso.h>

#include "handoff.h"

static struct handoff box;

static void *publisher(void *arg) {
    handoff_publish(&box, 42);
    return arg;
}

static void publish_then_receive(void) {
    pthread_t t;
    int message = -1;
    handoff_init(&box);
    pthread_create(&t, NULL, publisher, NULL);
    if (handoff_receive(&box, &message))
        TSO_ASSERT(message == 42);
    pthread_join(t, NULL);
}
