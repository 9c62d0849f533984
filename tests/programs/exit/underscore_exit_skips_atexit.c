// expect-sc: pass
// why: _Exit ends the process at once: atexit handlers do not run (exit() would run the failing handler).
#include <assert.h>
#include <stdlib.h>

static void handler(void) { assert(0); }

int main(void) {
    atexit(handler);
    _Exit(0);
}
