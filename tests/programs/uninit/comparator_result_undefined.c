// expect-sc: fail uninitialized
// why: qsort inspects what its comparator returns; this one returns a value it never initialised.
#include <stdio.h>
#include <stdlib.h>

static int by_nothing(const void *a, const void *b) {
    (void)a;
    (void)b;
    int *r = malloc(sizeof *r);
    return *(volatile int *)r;
}

int main(void) {
    int a[3] = {3, 1, 2};
    qsort(a, 3, sizeof a[0], by_nothing);
    printf("%d\n", a[0]);
    return 0;
}
