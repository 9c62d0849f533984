// expect-sc: pass
// why: every value tso_choose(3) returns in a thread is handled; the joined result is always in range.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

extern int tso_choose(int n);

int picked[2];

static void *pick(void *arg) {
    int me = (int)(long)arg;
    picked[me] = tso_choose(3) + 1;
    return NULL;
}

int main(void) {
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, pick, (void *)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    int sum = picked[0] + picked[1];
    assert(sum >= 2 && sum <= 6);
    return 0;
}
