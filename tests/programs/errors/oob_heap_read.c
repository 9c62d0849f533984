// expect-sc: fail out-of-bounds
// why: reading one element past a 4-element heap array is out of bounds.
#include <stdlib.h>

volatile int index_ = 4;

int main(void) {
    int *a = malloc(4 * sizeof(int));
    if (!a)
        return 0;
    for (int i = 0; i < 4; i++)
        a[i] = i;
    int v = a[index_];
    free(a);
    return v == 12345;
}
