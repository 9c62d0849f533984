// expect-sc: fail assertion
// why: after longjmp, setjmp returns again and the code after it sees what ran before.
#include <assert.h>
#include <setjmp.h>

static jmp_buf env;

int main(void) {
    volatile int x = 0;
    if (setjmp(env) == 0) {
        x = 1;
        longjmp(env, 2);
    }
    assert(x == 0);
    return 0;
}
