// Recursion without a base case: a stack-overflow verdict, not a host crash.
int depth(volatile int *n) { *n += 1; return depth(n) + 1; }
int main(void) { volatile int n = 0; return depth(&n); }
