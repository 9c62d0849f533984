// expect-sc: fail unsupported
// why: signals are out of scope: installing a handler is an `unsupported` verdict that says so, never a pass.
#include <signal.h>

static void handler(int s) { (void)s; }

int main(void) {
    signal(SIGINT, handler);
    return 0;
}
