// expect-sc: pass
// why: a deterministic single-threaded program prints known text through printf, puts and putchar (compare hello_output.stdout).
#include <stdio.h>

static unsigned fib(unsigned n) {
    unsigned a = 0, b = 1;
    for (unsigned i = 0; i < n; i++) {
        unsigned t = a + b;
        a = b;
        b = t;
    }
    return a;
}

int main(void) {
    puts("hello from the checker");
    for (unsigned n = 0; n < 10; n++)
        printf("fib(%u) = %u\n", n, fib(n));
    for (char c = 'a'; c <= 'e'; c++)
        putchar(c);
    putchar('\n');
    printf("%s|%8.3f|%-4d|done\n", "end", 1.5, 9);
    return 0;
}
