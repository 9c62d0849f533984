// expect-sc: fail data-race
// check-args: --races deny
// why: strcpy writes the buffer the other thread reads with no synchronisation: the library function's writes are recorded
#include <pthread.h>
#include <string.h>
char buf[8] = "abc";
char src[8] = "xyz";
void *writer(void *a) {
    strcpy(buf, (const char *)a);
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, writer, src);
    char c = *(volatile char *)&buf[1];
    pthread_join(t, 0);
    return c == 'b' || c == 'y' ? 0 : 1;
}
