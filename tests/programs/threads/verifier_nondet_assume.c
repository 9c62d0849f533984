// expect-sc: fail assertion
// why: __VERIFIER_nondet_uchar is explored for all 256 values; __VERIFIER_assume prunes all but 10..19, and 17 fails.
#include <assert.h>

extern unsigned char __VERIFIER_nondet_uchar(void);
extern _Bool __VERIFIER_nondet_bool(void);
extern void __VERIFIER_assume(int condition);

int main(void) {
    unsigned char v = __VERIFIER_nondet_uchar();
    __VERIFIER_assume(v >= 10 && v < 20);
    _Bool flip = __VERIFIER_nondet_bool();
    if (flip)
        assert(v != 17);
    return 0;
}
