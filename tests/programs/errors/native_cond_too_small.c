// expect-sc: fail out-of-bounds
// why: a pthread_cond_t* must point to a whole pthread_cond_t; one byte short is out of bounds.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void *volatile sink;

int main(void) {
    pthread_cond_t *c = malloc(sizeof(pthread_cond_t) - 1);
    memset(c, 0, sizeof(pthread_cond_t) - 1);
    sink = c;
    pthread_cond_signal(c);
    return 0;
}
