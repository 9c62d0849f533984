// SB through library functions: glibc's strlen, memcmp and memset hold no locked
// instruction, so on x86 their loads may pass the caller's older stores, and a
// library store is buffered like any other (`instrument::calls::UNFENCED_LIBRARY`).
// Expected outcomes: sb_library.expect.
#include <pthread.h>
#include <stdio.h>
#include <string.h>

char x[4], y[4];
static const char zero[4];
int r0, r1;

static void *thread0(void *arg) {
    (void)arg;
    x[0] = 'a';
    r0 = (int)strlen(y);
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    memset(y, 'b', 1);
    r1 = memcmp(x, zero, 1) != 0;
    return NULL;
}

int main(void) {
    pthread_t t[2];
    void *(*body[2])(void *) = {thread0, thread1};
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, body[i], NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("r0=%d r1=%d\n", r0, r1);
    return 0;
}
