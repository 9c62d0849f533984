/* The library as shipped: release and acquire on the flag. Passes under both models. */
#include "scenario.h"

TSO_TEST(receiver_sees_the_message) {
    publish_then_receive();
}
