// expect-sc: fail exit-status
// why: exit() with a non-zero status from a nested call is reported as exit-status.
#include <stdlib.h>

volatile int status = 2;

static void give_up(void) {
    exit(status);
}

int main(void) {
    give_up();
    return 0;
}
