// expect-sc: fail use-after-free
// why: the function that called setjmp has returned, so longjmp has no frame to return to.
#include <setjmp.h>

static jmp_buf env;

__attribute__((noinline)) static int arm(void) { return setjmp(env); }

int main(void) {
    if (arm() == 0)
        longjmp(env, 1);
    return 0;
}
