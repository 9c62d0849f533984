// expect-sc: fail division-by-zero
// why: integer remainder (%) by zero is reported as division-by-zero.
volatile unsigned zero = 0;

int main(void) {
    unsigned d = zero;
    return (int)(7u % d);
}
