// expect-sc: pass
// why: copying a struct with uninitialised padding and a partly filled array is not an error.
#include "common.h"
#include <stdio.h>
#include <string.h>

int main(void) {
    struct rec { char c; int i; } *a = malloc(sizeof *a), b;
    a->c = 1;
    a->i = 2;
    b = *a;
    struct rec *d = malloc(sizeof *d);
    memcpy(d, a, sizeof *a);
    int *arr = malloc(8 * sizeof(int));
    for (int k = 0; k < 4; k++)
        arr[k] = k;
    int copy[8];
    memcpy(copy, arr, sizeof copy);
    printf("%d %d %d %d\n", b.c, b.i, d->i, copy[3]);
    free(a);
    free(d);
    free(arr);
    return 0;
}
