/* The library built with HANDOFF_RELAXED (build.rs): the flag is relaxed. It passes
 * on x86 and fails under C11: declared so, and the failure's re-run under x86-TSO
 * must pass (`cargo tso test` says "needs C11 weakness (passes on x86)"). */
#include "scenario.h"

TSO_TEST_SHOULD_FAIL_UNDER_C11_WITH(receiver_may_see_a_stale_message, assertion) {
    publish_then_receive();
}
