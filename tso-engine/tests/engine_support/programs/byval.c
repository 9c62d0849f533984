#include <stdio.h>

/* A struct larger than 16 bytes is passed `byval`: the callee works on its own copy. */
struct big { int v[9]; long tag; };

static struct big bump(struct big b) {
    for (int i = 0; i < 9; i++) b.v[i] += i;
    b.tag = -1;
    return b;
}
static long total(struct big b) { long s = b.tag; for (int i = 0; i < 9; i++) s += b.v[i]; b.v[0] = 1000; return s; }

int main(void) {
    volatile int k = 3;
    struct big b = {{k, 1, 2, 3, 4, 5, 6, 7, 8}, 100};
    struct big c = bump(b);
    long t = total(b);
    printf("callee %d %ld | caller %d %ld | total %ld %d\n", c.v[8], c.tag, b.v[8], b.tag, t, b.v[0]);
    return 0;
}
