// expect-sc: fail use-after-free
// why: dereferencing a pointer to a local of a function that has returned is a use after free.
int *volatile escaped;

__attribute__((noinline)) static void leak_local(void) {
    int local = 42;
    escaped = &local;
    local++;
}

int main(void) {
    leak_local();
    return *escaped == 43;
}
