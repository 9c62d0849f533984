// expect-sc: fail division-by-zero
// why: integer division by zero is reported as division-by-zero.
volatile int zero = 0;

int main(void) {
    int d = zero;
    return 100 / d;
}
