// MP through library functions: a buffered library store (memcpy as a call) reaches
// memory before the plain flag store that follows it (buffers are FIFO), and a
// library load (memcmp) after the flag load cannot see older data (loads are not
// reordered with loads). Expected outcomes: mp_library.expect.
#include <pthread.h>
#include <stdio.h>
#include <string.h>

char data[4];
volatile int flag;
static const char src[4] = {1, 2, 3, 4};
int r0, r1;

static void *thread0(void *arg) {
    (void)arg;
    // Through a volatile function pointer, so the call stays a call at every level.
    void *(*volatile copy)(void *, const void *, size_t) = memcpy;
    copy(data, src, sizeof data);
    flag = 1;
    return NULL;
}

static void *thread1(void *arg) {
    (void)arg;
    r0 = flag;
    r1 = memcmp(data, src, sizeof data) == 0;
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
