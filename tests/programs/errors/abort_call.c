// expect-sc: fail abort
// why: calling abort() is reported as abort.
#include <stdlib.h>

volatile int broken = 1;

int main(void) {
    if (broken)
        abort();
    return 0;
}
