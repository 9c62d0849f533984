// expect-sc: pass
// why: malloc, calloc (zeroed), realloc (keeps contents when growing and shrinking), aligned_alloc and posix_memalign work and free cleanly.
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>

int main(void) {
    int *a = malloc(4 * sizeof *a);
    assert(a != NULL);
    for (int i = 0; i < 4; i++)
        a[i] = i * 10;

    int *grown = realloc(a, 8 * sizeof *grown);
    assert(grown != NULL);
    for (int i = 0; i < 4; i++)
        assert(grown[i] == i * 10);
    grown[7] = 70;

    int *shrunk = realloc(grown, 2 * sizeof *shrunk);
    assert(shrunk != NULL);
    assert(shrunk[0] == 0 && shrunk[1] == 10);
    free(shrunk);

    long *zeroed = calloc(5, sizeof *zeroed);
    assert(zeroed != NULL);
    for (int i = 0; i < 5; i++)
        assert(zeroed[i] == 0);
    free(zeroed);

    char *fresh = realloc(NULL, 3); /* behaves like malloc */
    assert(fresh != NULL);
    fresh[2] = 'x';
    free(fresh);

    void *al = aligned_alloc(64, 128);
    assert(al != NULL && (uintptr_t)al % 64 == 0);
    ((char *)al)[127] = 1;
    free(al);

    void *pm = NULL;
    int rc = posix_memalign(&pm, 32, 40);
    assert(rc == 0 && pm != NULL && (uintptr_t)pm % 32 == 0);
    ((char *)pm)[39] = 1;
    free(pm);

    free(NULL);
    return 0;
}
