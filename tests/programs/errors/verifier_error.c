// expect-sc: fail assertion
// why: reaching the SV-COMP __VERIFIER_error() is reported as an assertion failure.
extern void __VERIFIER_error(void);

volatile int value = 3;

int main(void) {
    if (value * 2 == 6)
        __VERIFIER_error();
    return 0;
}
