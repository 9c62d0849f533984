// expect-sc: fail assertion
// why: the shape of SV-COMP's pthread/reorder_2.c (2 setters, 2 checkers): sscanf, a C library function the checker does not model, is called only when argc != 1, which no run reaches, so the program is checked and the reordering bug found.
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int setters = 2;
static int checkers = 2;
static int a, b;

static void *set(void *arg) {
    (void)arg;
    a = 1;
    b = -1;
    return NULL;
}

static void *check(void *arg) {
    (void)arg;
    /* A checker may see a=1 before b=-1 lands. */
    assert((a == 0 && b == 0) || (a == 1 && b == -1));
    return NULL;
}

int main(int argc, char *argv[]) {
    if (argc != 1) {
        if (argc != 3) {
            fprintf(stderr, "usage: reorder <setters> <checkers>\n");
            exit(-1);
        }
        sscanf(argv[1], "%d", &setters);
        sscanf(argv[2], "%d", &checkers);
    }
    pthread_t set_pool[setters];
    pthread_t check_pool[checkers];
    for (int i = 0; i < setters; i++)
        if (pthread_create(&set_pool[i], NULL, set, NULL) != 0)
            exit(-1);
    for (int i = 0; i < checkers; i++)
        if (pthread_create(&check_pool[i], NULL, check, NULL) != 0)
            exit(-1);
    for (int i = 0; i < setters; i++)
        pthread_join(set_pool[i], NULL);
    for (int i = 0; i < checkers; i++)
        pthread_join(check_pool[i], NULL);
    return 0;
}
