// expect-sc: pass
// why: exit(0) from a nested call is a normal end (control for the exit-status tests).
#include <stdlib.h>

volatile int status = 0;

static void finish(void) {
    exit(status);
}

int main(void) {
    finish();
    return 1; /* not reached */
}
