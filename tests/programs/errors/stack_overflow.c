// expect-sc: fail stack-overflow
// why: unbounded (non-tail) recursion with a live local array in every frame overflows the stack.
volatile int sink;

__attribute__((noinline)) static int descend(int depth) {
    volatile char frame[256];
    frame[0] = (char)depth;
    int below = descend(depth + 1);
    return below + frame[0];
}

int main(void) {
    sink = descend(0);
    return 0;
}
