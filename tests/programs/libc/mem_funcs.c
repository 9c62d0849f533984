// expect-sc: pass
// why: memcpy, memmove (both overlap directions) and memset produce the right bytes, on the stack and the heap.
#include <assert.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    char src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    char dst[8];
    memset(dst, 0x5a, sizeof dst);
    assert(dst[0] == 0x5a && dst[7] == 0x5a);
    memcpy(dst, src, 8);
    assert(memcmp(dst, src, 8) == 0);

    char buf[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    memmove(buf + 2, buf, 6); /* forward overlap */
    const char fwd[10] = {0, 1, 0, 1, 2, 3, 4, 5, 8, 9};
    assert(memcmp(buf, fwd, 10) == 0);

    char buf2[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    memmove(buf2, buf2 + 3, 7); /* backward overlap */
    const char bwd[10] = {3, 4, 5, 6, 7, 8, 9, 7, 8, 9};
    assert(memcmp(buf2, bwd, 10) == 0);

    int *heap = malloc(6 * sizeof *heap);
    assert(heap != NULL);
    memset(heap, 0, 6 * sizeof *heap);
    int vals[3] = {7, 8, 9};
    memcpy(heap + 3, vals, sizeof vals);
    assert(heap[0] == 0 && heap[2] == 0 && heap[3] == 7 && heap[5] == 9);

    struct pair {
        int a;
        long b;
    } p = {1, 2}, q;
    memcpy(&q, &p, sizeof p); /* struct copy with pointer-sized field */
    assert(q.a == 1 && q.b == 2);
    free(heap);
    return 0;
}
