//! pthread natives: condition variables, rwlocks, barriers, once, keys and spin locks,
//! correct uses and misuse, each compiled at -O0 and -O2.

mod natives_support;

use natives_support::expect;
use tso_engine::ErrorKind;

const PRELUDE: &str = "#include <assert.h>\n#include <errno.h>\n#include <pthread.h>\n#include <stddef.h>\n#include <stdlib.h>\n";

fn c(body: &str) -> String {
    format!("{PRELUDE}{body}")
}

#[test]
fn cond_wait_without_the_mutex_is_misuse() {
    expect(&c("pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER; pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
        int main(void) { pthread_cond_wait(&cv, &m); return 0; }"), "c", Some(ErrorKind::PthreadMisuse));
}

const TWO_WAITERS: &str = "pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER; pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
    int waiting, woken;
    static void *waiter(void *a) { (void)a; pthread_mutex_lock(&m); waiting++; pthread_cond_wait(&cv, &m); woken++; pthread_mutex_unlock(&m); return NULL; }
    int main(void) {
        pthread_t t[2];
        for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, waiter, NULL);
        for (;;) { pthread_mutex_lock(&m); int w = waiting; pthread_mutex_unlock(&m); if (w == 2) break; }
        pthread_mutex_lock(&m); WAKE(&cv); pthread_mutex_unlock(&m);
        for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
        assert(woken == 2);
        return 0;
    }";

#[test]
fn signal_wakes_exactly_one_waiter() {
    // One signal for two waiters: the other waits forever (no spurious wake-ups).
    let src = c(&format!("#define WAKE pthread_cond_signal\n{TWO_WAITERS}"));
    let reports = expect(&src, "c", Some(ErrorKind::Deadlock));
    assert!(reports.iter().all(|r| r.counterexample.is_some()));
}

#[test]
fn broadcast_wakes_every_waiter() {
    expect(
        &c(&format!(
            "#define WAKE pthread_cond_broadcast\n{TWO_WAITERS}"
        )),
        "c",
        None,
    );
}

#[test]
fn signal_choice_explores_both_waiters() {
    // Which of two waiters a signal wakes is nondeterministic: the one that is woken
    // records itself, and the assertion that it is always thread 1 must fail.
    let src = c("pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER; pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
        int waiting, first = -1;
        static void *waiter(void *a) { pthread_mutex_lock(&m); waiting++; pthread_cond_wait(&cv, &m); if (first < 0) first = (int)(long)a; pthread_mutex_unlock(&m); return NULL; }
        int main(void) {
            pthread_t t[2];
            for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, waiter, (void *)i);
            for (;;) { pthread_mutex_lock(&m); int w = waiting; pthread_mutex_unlock(&m); if (w == 2) break; }
            pthread_mutex_lock(&m); pthread_cond_signal(&cv); pthread_mutex_unlock(&m);
            for (;;) { pthread_mutex_lock(&m); int f = first; pthread_mutex_unlock(&m); if (f >= 0) break; }
            assert(first == 1);
            pthread_mutex_lock(&m); pthread_cond_signal(&cv); pthread_mutex_unlock(&m);
            for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
            return 0;
        }");
    expect(&src, "c", Some(ErrorKind::Assertion));
}

#[test]
fn timed_wait_with_nobody_to_signal_times_out_or_wakes_spuriously() {
    expect(&c("pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER; pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
        int main(void) { struct timespec ts = {0, 0}; pthread_mutex_lock(&m);
            int rc = pthread_cond_timedwait(&cv, &m, &ts);
            assert(rc == ETIMEDOUT || rc == 0); pthread_mutex_unlock(&m); return 0; }"), "c", None);
    // A spurious wake-up returns 0 although nobody signalled (POSIX allows it).
    expect(&c("pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER; pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
        int main(void) { struct timespec ts = {0, 0}; pthread_mutex_lock(&m);
            int rc = pthread_cond_timedwait(&cv, &m, &ts);
            assert(rc == ETIMEDOUT); pthread_mutex_unlock(&m); return 0; }"), "c", Some(ErrorKind::Assertion));
}

#[test]
fn a_trace_shows_the_value_chosen_only_for_a_value_choice() {
    // `tso_choose` chooses a value: its step shows it. A spurious wake-up is a choice
    // too, but of another kind: the wait's step shows no value (its result is not one).
    let src = c("#include <tso.h>
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER; pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
        int main(void) { int pick = tso_choose(3); struct timespec ts = {0, 0}; pthread_mutex_lock(&m);
            int rc = pthread_cond_timedwait(&cv, &m, &ts);
            assert(pick != 2 || rc == ETIMEDOUT); pthread_mutex_unlock(&m); return 0; }");
    for r in expect(&src, "c", Some(ErrorKind::Assertion)) {
        let steps = &r.counterexample.expect("a failing run has a trace").steps;
        let action = |name: &str| {
            steps
                .iter()
                .find(|s| s.action.contains(name))
                .map(|s| s.action.clone())
                .unwrap_or_else(|| panic!("no step calls {name}: {steps:?}"))
        };
        assert!(action("tso_choose").ends_with("→ 2"), "{steps:?}");
        let wait = action("pthread_cond_timedwait");
        assert!(!wait.contains('→'), "{wait}");
        assert!(
            steps
                .iter()
                .any(|s| s.notes.iter().any(|n| n.contains("spuriously"))),
            "{steps:?}"
        );
    }
}

#[test]
fn timed_wait_may_time_out_before_the_signal() {
    expect(&c("pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER; pthread_cond_t cv = PTHREAD_COND_INITIALIZER; int ready;
        static void *go(void *a) { (void)a; pthread_mutex_lock(&m); ready = 1; pthread_cond_signal(&cv); pthread_mutex_unlock(&m); return NULL; }
        int main(void) { struct timespec ts = {0, 0}; pthread_t t; pthread_mutex_lock(&m);
            pthread_create(&t, NULL, go, NULL);
            int rc = 0; while (!ready && rc == 0) rc = pthread_cond_timedwait(&cv, &m, &ts);
            assert(rc == 0); pthread_mutex_unlock(&m); pthread_join(t, NULL); return 0; }"), "c", Some(ErrorKind::Assertion));
}

#[test]
fn destroying_a_cond_with_a_waiter_is_misuse() {
    expect(&c("pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER; pthread_cond_t cv = PTHREAD_COND_INITIALIZER; int waiting;
        static void *w(void *a) { (void)a; pthread_mutex_lock(&m); waiting = 1; pthread_cond_wait(&cv, &m); pthread_mutex_unlock(&m); return NULL; }
        int main(void) { pthread_t t; pthread_create(&t, NULL, w, NULL);
            for (;;) { pthread_mutex_lock(&m); int x = waiting; pthread_mutex_unlock(&m); if (x) break; }
            pthread_cond_destroy(&cv); return 0; }"), "c", Some(ErrorKind::PthreadMisuse));
}

#[test]
fn rwlock_misuse_and_errors() {
    expect(&c("pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER; int main(void) { pthread_rwlock_unlock(&l); return 0; }"), "c", Some(ErrorKind::PthreadMisuse));
    expect(&c("pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER; int main(void) { pthread_rwlock_rdlock(&l); pthread_rwlock_destroy(&l); return 0; }"), "c", Some(ErrorKind::PthreadMisuse));
    expect(&c("pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER; int main(void) { pthread_rwlock_rdlock(&l); pthread_rwlock_wrlock(&l); return 0; }"), "c", Some(ErrorKind::Deadlock));
    expect(&c("pthread_rwlock_t l;
        static void *r(void *a) { (void)a; assert(pthread_rwlock_tryrdlock(&l) == 0); pthread_rwlock_unlock(&l); return NULL; }
        int main(void) { pthread_rwlock_init(&l, NULL); assert(pthread_rwlock_rdlock(&l) == 0);
            pthread_t t; pthread_create(&t, NULL, r, NULL); pthread_join(t, NULL);
            assert(pthread_rwlock_trywrlock(&l) == EBUSY);
            pthread_rwlock_unlock(&l); assert(pthread_rwlock_trywrlock(&l) == 0);
            assert(pthread_rwlock_wrlock(&l) == EDEADLK); assert(pthread_rwlock_tryrdlock(&l) == EDEADLK);
            pthread_rwlock_unlock(&l); pthread_rwlock_destroy(&l); return 0; }"), "c", None);
}

#[test]
fn rwlock_reader_blocks_writer_in_another_thread() {
    expect(&c("pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
        static void *w(void *a) { (void)a; int rc = pthread_rwlock_trywrlock(&l); assert(rc == EBUSY); return NULL; }
        int main(void) { pthread_rwlock_rdlock(&l); pthread_t t; pthread_create(&t, NULL, w, NULL); pthread_join(t, NULL); pthread_rwlock_unlock(&l); return 0; }"), "c", None);
}

#[test]
fn barrier_is_reusable_and_has_one_serial_thread_per_round() {
    expect(&c("pthread_barrier_t b; int serial, before[3], seen_all;
        static void *w(void *a) { long me = (long)a;
            for (int round = 0; round < 2; round++) {
                __atomic_store_n(&before[me], round + 1, __ATOMIC_SEQ_CST);
                int rc = pthread_barrier_wait(&b);
                if (rc == PTHREAD_BARRIER_SERIAL_THREAD) __atomic_fetch_add(&serial, 1, __ATOMIC_SEQ_CST); else assert(rc == 0);
                for (int i = 0; i < 3; i++) assert(__atomic_load_n(&before[i], __ATOMIC_SEQ_CST) >= round + 1);
                pthread_barrier_wait(&b);
            }
            return NULL; }
        int main(void) { pthread_barrier_init(&b, NULL, 3); pthread_t t[2];
            for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, w, (void *)(i + 1));
            w((void *)0);
            for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
            assert(serial == 2); pthread_barrier_destroy(&b); return 0; }"), "c", None);
}

#[test]
fn barrier_misuse() {
    expect(
        &c("pthread_barrier_t b; int main(void) { pthread_barrier_wait(&b); return 0; }"),
        "c",
        Some(ErrorKind::PthreadMisuse),
    );
    expect(&c("pthread_barrier_t b; int main(void) { assert(pthread_barrier_init(&b, NULL, 0) == EINVAL); pthread_barrier_init(&b, NULL, 2); pthread_barrier_wait(&b); return 0; }"), "c", Some(ErrorKind::Deadlock));
}

#[test]
fn once_runs_the_routine_once_and_detects_recursion() {
    expect(&c("pthread_once_t o = PTHREAD_ONCE_INIT; int calls;
        static void init(void) { calls++; }
        static void *w(void *a) { (void)a; pthread_once(&o, init); assert(calls == 1); return NULL; }
        int main(void) { pthread_t t; pthread_create(&t, NULL, w, NULL); pthread_once(&o, init); pthread_once(&o, init);
            pthread_join(t, NULL); assert(calls == 1); return 0; }"), "c", None);
    expect(&c("pthread_once_t o = PTHREAD_ONCE_INIT; static void init(void) { pthread_once(&o, init); }
        int main(void) { pthread_once(&o, init); return 0; }"), "c", Some(ErrorKind::Deadlock));
}

const KEY_DESTRUCTORS: &str = "pthread_key_t key; int destroyed;
    static void release(void *v) { __atomic_fetch_add(&destroyed, 1, __ATOMIC_SEQ_CST); free(v); }
    static void *w(void *a) { int *mine = malloc(sizeof *mine); *mine = (int)(long)a; pthread_setspecific(key, mine);
        assert(*(int *)pthread_getspecific(key) == (int)(long)a); EXIT; }
    int main(void) { pthread_key_create(&key, release); pthread_t t[2];
        for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, w, (void *)i);
        for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
        assert(pthread_getspecific(key) == NULL); assert(destroyed == 2);
        pthread_key_delete(key); assert(pthread_setspecific(key, &destroyed) == EINVAL); return 0; }";

#[test]
fn key_destructors_run_at_pthread_exit() {
    expect(
        &c(&format!(
            "#define EXIT pthread_exit(NULL)\n{KEY_DESTRUCTORS}"
        )),
        "c",
        None,
    );
}

#[test]
fn key_destructors_run_when_the_start_routine_returns() {
    expect(
        &c(&format!("#define EXIT return NULL\n{KEY_DESTRUCTORS}")),
        "c",
        None,
    );
}

#[test]
fn spin_locks_exclude_and_report_misuse() {
    expect(&c("pthread_spinlock_t s; int counter;
        static void *w(void *a) { (void)a; pthread_spin_lock(&s); int v = counter; counter = v + 1; pthread_spin_unlock(&s); return NULL; }
        int main(void) { pthread_spin_init(&s, 0); pthread_t t[2];
            for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, w, NULL);
            for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
            assert(counter == 2); assert(pthread_spin_trylock(&s) == 0); assert(pthread_spin_trylock(&s) == EBUSY);
            pthread_spin_unlock(&s); pthread_spin_destroy(&s); return 0; }"), "c", None);
    expect(
        &c("pthread_spinlock_t s; int main(void) { pthread_spin_unlock(&s); return 0; }"),
        "c",
        Some(ErrorKind::PthreadMisuse),
    );
    expect(&c("pthread_spinlock_t s; int main(void) { pthread_spin_lock(&s); pthread_spin_destroy(&s); return 0; }"), "c", Some(ErrorKind::PthreadMisuse));
}

#[test]
fn unwind_next_outside_cancellation_is_misuse() {
    // Only the code clang emits for a cleanup handler, entered by cancellation or
    // pthread_exit, may call __pthread_unwind_next.
    expect(
        "extern void __pthread_unwind_next(void *buf);
        int main(void) { char buf[104] = {0}; __pthread_unwind_next(buf); return 0; }",
        "c",
        Some(ErrorKind::PthreadMisuse),
    );
}
