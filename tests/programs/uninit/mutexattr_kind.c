// expect-sc: fail uninitialized
// why: pthread_mutexattr_settype inspects its kind argument: an undefined one is an error.
#include "common.h"
#include <stdio.h>
#include <string.h>
#include <pthread.h>
int main(void) {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    int kind = (int)partly_defined(0x0, 0);
    pthread_mutexattr_settype(&attr, kind);
    return 0;
}
