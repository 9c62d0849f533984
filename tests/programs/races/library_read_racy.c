// expect-sc: fail data-race
// check-args: --races deny
// why: strlen reads the buffer while another thread writes it without the mutex: a race inside the library function is a race of the caller
#include <pthread.h>
#include <string.h>
char buf[8] = "abc";
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
void *writer(void *a) {
    buf[3] = 'd';
    buf[4] = 0;
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
