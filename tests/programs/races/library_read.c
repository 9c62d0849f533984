// expect-sc: pass
// check-args: --races deny
// why: strlen reads the buffer another thread writes, both under one mutex: the library function's reads are ordered like the program's own
#include <pthread.h>
#include <string.h>
char buf[8] = "abc";
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
void *writer(void *a) {
    pthread_mutex_lock(&m);
    buf[3] = 'd';
    buf[4] = 0;
    pthread_mutex_unlock(&m);
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, writer, 0);
    pthread_mutex_lock(&m);
    size_t n = strlen(buf);
    pthread_mutex_unlock(&m);
    pthread_join(t, 0);
    return n == 3 || n == 4 ? 0 : 1;
}
