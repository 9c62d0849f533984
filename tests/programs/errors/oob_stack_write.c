// expect-sc: fail out-of-bounds
// why: writing one element past a local array (through a non-inlined callee) is out of bounds.
volatile int index_ = 8;

__attribute__((noinline)) static void fill(int *p, int i) {
    p[i] = 7;
}

int main(void) {
    int a[8];
    for (int i = 0; i < 8; i++)
        a[i] = 0;
    fill(a, index_);
    return a[0];
}
