// expect-sc: pass
// why: longjmp from nested calls returns to setjmp with its value (0 becomes 1); sigsetjmp too.
#include <assert.h>
#include <setjmp.h>

static jmp_buf env;
static sigjmp_buf sig_env;

static void unwind(int depth, int code) {
    int local[4];
    local[depth % 4] = code;
    if (depth == 0)
        longjmp(env, local[0]);
    unwind(depth - 1, code);
}

int main(void) {
    volatile int tries = 0;
    volatile int again = 0;
    int r = setjmp(env);
    tries++;
    if (r == 0)
        unwind(3, 7);
    assert(r == 7 && tries == 2);
    if (setjmp(env) == 0)
        longjmp(env, 0);
    else
        again++;
    assert(again == 1);
    int s = sigsetjmp(sig_env, 1);
    if (s == 0)
        siglongjmp(sig_env, 3);
    assert(s == 3);
    return 0;
}
