// expect-sc: fail out-of-bounds
// why: reading past the end of a global array is out of bounds.
int table[3] = {1, 2, 3};
volatile int index_ = 3;

int main(void) {
    volatile int *p = table;
    return p[index_] == 99;
}
