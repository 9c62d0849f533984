// expect-sc: pass
// why: packed bit-field structs passed by value into another thread's argument block, updated there field by field and published back under a mutex (TSO store buffers carry the odd-width stores as bytes) keep every field.
#include <assert.h>
#include <pthread.h>
#include "shapes.h"

struct job {
    struct S168 in;
    struct S200 wide;
};

static struct S168 result;
static struct S200 result200;
static int done;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *p) {
    struct job j = *(struct job *)p;
    j.in.f0 -= 1;
    j.in.f5 = -j.in.f5;
    j.in.f7 += 26;
    j.wide.d = j.wide.d / 2 - 1;
    j.wide.c ^= 0xff;
    pthread_mutex_lock(&m);
    result = j.in;
    result200 = j.wide;
    done = 1;
    pthread_mutex_unlock(&m);
    return 0;
}

int main(void) {
    struct job j = {{-6645, 67, 591, 635, -25, 31, 8, 9674, 6},
                    {0xfedcba987654321ULL, -1152921504606846976LL, 131071, 2305843009213693951LL}};
    pthread_t t;
    pthread_create(&t, 0, worker, &j);
    pthread_mutex_lock(&m);
    int seen = done;
    struct S168 r = result;
    pthread_mutex_unlock(&m);
    if (seen) {
        assert(r.f0 == -6646 && r.f1 == 67 && r.f2 == 591 && r.f3 == 635 && r.f4 == -25);
        assert(r.f5 == -31 && r.f6 == 8 && r.f7 == 9700 && r.f8 == 6);
    }
    pthread_join(t, 0);
    assert(result.f0 == -6646 && result.f5 == -31 && result.f7 == 9700 && result.f8 == 6);
    assert(result.f1 == 67 && result.f2 == 591 && result.f3 == 635 && result.f4 == -25 &&
           result.f6 == 8);
    assert(result200.a == 0xfedcba987654321ULL && result200.b == -1152921504606846976LL);
    assert(result200.c == (131071u ^ 0xff) && result200.d == 1152921504606846974LL);
    /* The caller's copy is unchanged. */
    assert(j.in.f0 == -6645 && j.in.f5 == 31 && j.wide.c == 131071);
    return 0;
}
