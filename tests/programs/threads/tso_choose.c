// expect-sc: fail assertion
// why: tso_choose(n) is explored exhaustively: only the choice pair (2, 3) out of 3x4 violates the assertion.
#include <assert.h>

extern int tso_choose(int n);

int main(void) {
    int a = tso_choose(3);
    int b = tso_choose(4);
    assert(a >= 0 && a < 3 && b >= 0 && b < 4);
    assert(!(a == 2 && b == 3));
    return 0;
}
