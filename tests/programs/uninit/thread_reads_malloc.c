// expect-sc: fail uninitialized
// why: a thread branches on a malloc'd int nobody wrote.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

int *volatile shared;

static void *reader(void *arg) {
    (void)arg;
    if (*shared == 1)
        puts("one");
    return NULL;
}

int main(void) {
    shared = malloc(sizeof(int));
    pthread_t t;
    pthread_create(&t, NULL, reader, NULL);
    pthread_join(t, NULL);
    free(shared);
    return 0;
}
