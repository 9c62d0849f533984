// expect-sc: pass
// why: qsort sorts and bsearch finds with comparators the program defines (under TSO the comparator's loads are calls into the runtime, which must not restart qsort).
#include <assert.h>
#include <stdlib.h>

static int by_value(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int main(void) {
    int a[5] = {4, 1, 5, 2, 3};
    qsort(a, 5, sizeof a[0], by_value);
    for (int i = 0; i < 5; i++)
        assert(a[i] == i + 1);
    int key = 4;
    int *found = bsearch(&key, a, 5, sizeof a[0], by_value);
    assert(found == &a[3]);
    key = 9;
    assert(bsearch(&key, a, 5, sizeof a[0], by_value) == NULL);
    return 0;
}
