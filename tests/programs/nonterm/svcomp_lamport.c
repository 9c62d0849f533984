// expect-sc: pass
// expect-tso: fail assertion
// clang-args: -O0
// check-args: --allow-nontermination
// why: SV-COMP pthread-atomic's Lamport fast mutex: some waits spin on a copy read once and never end; main joining such a stuck thread is the same non-termination, not a deadlock.
#include <assert.h>
#include <pthread.h>

extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);

int x, y;
int b1, b2;
int in_cs;

static void *first(void *arg) {
    (void)arg;
    for (;;) {
        b1 = 1;
        __VERIFIER_atomic_begin();
        x = 1;
        __VERIFIER_atomic_end();
        int seen_y = y;
        if (seen_y != 0) {
            __VERIFIER_atomic_begin();
            b1 = 0;
            __VERIFIER_atomic_end();
            seen_y = y;
            while (y != 0) {
            }
            continue;
        }
        __VERIFIER_atomic_begin();
        y = 1;
        __VERIFIER_atomic_end();
        int seen_x = x;
        if (seen_x != 1) {
            b1 = 0;
            int seen_b2 = b2;
            while (seen_b2 >= 1) {
            }
            seen_y = y;
            if (seen_y != 1) {
                seen_y = y;
                while (seen_y != 0) {
                }
                continue;
            }
        }
        break;
    }
    in_cs = 0;
    assert(in_cs <= 0);
    __VERIFIER_atomic_begin();
    y = 0;
    __VERIFIER_atomic_end();
    b1 = 0;
    return 0;
}

static void *second(void *arg) {
    (void)arg;
    for (;;) {
        b2 = 1;
        x = 2;
        int seen_y = y;
        if (seen_y != 0) {
            b2 = 0;
            __VERIFIER_atomic_begin();
            seen_y = y;
            __VERIFIER_atomic_end();
            while (seen_y != 0) {
            }
            continue;
        }
        __VERIFIER_atomic_begin();
        y = 2;
        __VERIFIER_atomic_end();
        __VERIFIER_atomic_begin();
        int seen_x = x;
        __VERIFIER_atomic_end();
        if (seen_x != 2) {
            b2 = 0;
            __VERIFIER_atomic_begin();
            int seen_b1 = b1;
            __VERIFIER_atomic_end();
            while (seen_b1 >= 1) {
            }
            seen_y = y;
            if (seen_y != 2) {
                seen_y = y;
                while (seen_y != 0) {
                }
                continue;
            }
        }
        break;
    }
    in_cs = 1;
    assert(in_cs >= 1);
    y = 0;
    b2 = 0;
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
