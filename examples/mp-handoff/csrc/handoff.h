#ifndef HANDOFF_H
#define HANDOFF_H

#include <stdatomic.h>
#include <stdbool.h>

/* A one-shot handoff: one thread publishes a message, another receives it once the
 * flag says it is there. */
struct handoff {
    atomic_int message;
    atomic_bool ready;
};

void handoff_init(struct handoff *h);
void handoff_publish(struct handoff *h, int message);
/* Whether the message is there; if so, stores it in *message. */
bool handoff_receive(struct handoff *h, int *message);

#endif
