// expect-sc: fail uninitialized
// why: main's return value is the exit status: returning an undefined value is an error.
int main(void) {
    int r;
    volatile int *p = &r;
    return *p;
}
