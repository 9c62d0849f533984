// expect-sc: pass
// expect-tso: pass
// clang-args: -O0
// check-args: --allow-nontermination
// why: SV-COMP pthread-atomic's Peterson: each thread waits on copies of the flag and turn it read once, so a thread that read them as "wait" spins forever; main joining it is the same non-termination, not a deadlock.
#include <assert.h>
#include <pthread.h>

extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);

int wants0, wants1;
int turn;
int in_cs;

static void *first(void *arg) {
    (void)arg;
    wants0 = 1;
    __VERIFIER_atomic_begin();
    turn = 1;
    __VERIFIER_atomic_end();
    int other = wants1;
    int t = turn;
    while (other == 1 && t == 1) {
    }
    in_cs = 0;
    assert(in_cs <= 0);
    __VERIFIER_atomic_begin();
    wants0 = 0;
    __VERIFIER_atomic_end();
    return 0;
}

static void *second(void *arg) {
    (void)arg;
    wants1 = 1;
    turn = 0;
    __VERIFIER_atomic_begin();
    int other = wants0;
    __VERIFIER_atomic_end();
    __VERIFIER_atomic_begin();
    int t = turn;
    __VERIFIER_atomic_end();
    while (other == 1 && t == 0) {
    }
    in_cs = 1;
    assert(in_cs >= 1);
    wants1 = 0;
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
