// expect-sc: pass
// expect-tso: pass
// clang-args: -O0
// check-args: --allow-nontermination
// why: SV-COMP pthread-atomic's Szymanski: every wait spins on a copy of the other's flag read once, so a thread can spin forever; main joining it is the same non-termination, not a deadlock.
#include <assert.h>
#include <pthread.h>

extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);

int flag0, flag1;
int in_cs;

static void *first(void *arg) {
    (void)arg;
    __VERIFIER_atomic_begin();
    flag0 = 1;
    __VERIFIER_atomic_end();
    int other = flag1;
    while (other >= 3) {
    }
    flag0 = 3;
    other = flag1;
    if (other == 1) {
        __VERIFIER_atomic_begin();
        flag0 = 2;
        __VERIFIER_atomic_end();
        other = flag1;
        while (other != 4) {
        }
    }
    flag0 = 4;
    other = flag1;
    while (other >= 2) {
    }
    in_cs = 0;
    assert(in_cs <= 0);
    other = flag1;
    while (2 <= other && other <= 3) {
    }
    flag0 = 0;
    return 0;
}

static void *second(void *arg) {
    (void)arg;
    flag1 = 1;
    __VERIFIER_atomic_begin();
    int other = flag0;
    __VERIFIER_atomic_end();
    while (other >= 3) {
    }
    flag1 = 3;
    other = flag0;
    if (other == 1) {
        flag1 = 2;
        other = flag0;
        while (other != 4) {
        }
    }
    flag1 = 4;
    other = flag0;
    while (other >= 2) {
    }
    in_cs = 1;
    assert(in_cs >= 1);
    __VERIFIER_atomic_begin();
    other = flag0;
    __VERIFIER_atomic_end();
    while (2 <= other && other <= 3) {
    }
    flag1 = 0;
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, first, 0);
    pthread_create(&b, 0, second, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
}
