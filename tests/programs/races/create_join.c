// expect-sc: pass
// check-args: --races deny
// why: writes before pthread_create and after pthread_join are ordered with the thread's
#include <pthread.h>
#include <stdlib.h>
int x;
void *work(void *a) {
    int *p = a;
    *p += 1;
    x += 1;
    return 0;
}
int main(void) {
    int *p = malloc(sizeof *p);
    *p = 1;
    x = 1;
    pthread_t t;
    pthread_create(&t, 0, work, p);
    pthread_join(t, 0);
    int v = *p + x;
    free(p);
    return v == 4 ? 0 : 1;
}
