// expect-sc: fail data-race
// check-args: --races deny
// why: main reads what the thread writes before joining it
#include <pthread.h>
int x;
void *work(void *a) {
    x = 2;
    return 0;
}
int main(void) {
    x = 1;
    pthread_t t;
    pthread_create(&t, 0, work, 0);
    int v = x;
    pthread_join(t, 0);
    return v >= 0 ? 0 : 1;
}
