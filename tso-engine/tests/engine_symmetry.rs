//! Thread symmetry (`store/symmetry.rs`): states that differ only in which thread is
//! which are stored once, without changing any verdict, outcome or counterexample.
//! Checked by state counts with and without it, by `SymmetryCheck` (every state's
//! threads renamed must step like the originals, renamed) and `DecodeCheck` (rebuilt
//! representatives step like the originals) over programs using each modelled
//! primitive, and by counterexamples that must replay to their error.

mod engine_support;

use engine_support::*;
use std::path::Path;
use std::sync::Arc;
use tso_engine::explore::roundtrip::{DecodeCheck, SymmetryCheck};
use tso_engine::race::RacePolicy;
use tso_engine::{CheckReport, ErrorKind, Verdict};

fn run(src: &str, opt: &str, symmetry: bool) -> CheckReport {
    let mut opts = options();
    opts.machine.symmetry = symmetry;
    opts.collect_outcomes = true;
    check_with(src, opt, &[], &opts)
}

/// Three detached workers with the same routine and argument: nothing tells them apart.
const MUTEX_COUNTER: &str = r#"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <assert.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int x;
atomic_int done;
static void *work(void *arg) {
    (void)arg;
    for (int k = 0; k < 2; k++) {
        pthread_mutex_lock(&m);
        int v = x;
        x = v + 1;
        pthread_mutex_unlock(&m);
    }
    atomic_fetch_add(&done, 1);
    return 0;
}
int main(void) {
    for (int i = 0; i < 3; i++) {
        pthread_t t;
        pthread_create(&t, 0, work, 0);
        pthread_detach(t);
    }
    while (atomic_load(&done) != 3)
        ;
    assert(x == 6);
    printf("x=%d\n", x);
    return 0;
}
"#;

#[test]
fn identical_threads_under_a_mutex_are_stored_once_per_arrangement() {
    for opt in ["-O0", "-O1"] {
        let with = run(MUTEX_COUNTER, opt, true);
        let without = run(MUTEX_COUNTER, opt, false);
        assert_pass(&with, opt);
        assert_pass(&without, opt);
        assert_eq!(with.outcomes, without.outcomes, "{opt}: outcomes");
        assert!(
            with.stats.states < without.stats.states,
            "{opt}: {} states with symmetry, {} without",
            with.stats.states,
            without.stats.states
        );
        // The representatives do not depend on the search: the same states with the
        // breadth-first search on two workers.
        let mut opts = options();
        opts.jobs = 2;
        let two = check_with(MUTEX_COUNTER, opt, &[], &opts);
        assert_eq!(
            two.stats.states, with.stats.states,
            "{opt}: 1 and 2 workers"
        );
    }
}

/// Each worker keeps its argument to the end (it is its result): no two are ever alike.
const DISTINCT_ARGUMENTS: &str = r#"
#include <pthread.h>
#include <stdatomic.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
long slot[3];
atomic_int done;
static void *work(void *arg) {
    long id = (long)arg;
    for (int k = 0; k < 2; k++) {
        pthread_mutex_lock(&m);
        slot[id] += id + 1;
        pthread_mutex_unlock(&m);
    }
    atomic_fetch_add(&done, 1);
    return arg;
}
int main(void) {
    for (long i = 0; i < 3; i++) {
        pthread_t t;
        pthread_create(&t, 0, work, (void *)i);
        pthread_detach(t);
    }
    while (atomic_load(&done) != 3)
        ;
    return 0;
}
"#;

#[test]
fn threads_told_apart_by_their_arguments_keep_every_state() {
    for opt in ["-O0", "-O1"] {
        let with = run(DISTINCT_ARGUMENTS, opt, true);
        let without = run(DISTINCT_ARGUMENTS, opt, false);
        assert_pass(&with, opt);
        assert_eq!(with.stats.states, without.stats.states, "{opt}: states");
    }
}

/// Handles kept in a global, compared with `pthread_self` and joined out of order: the
/// handles are renamed with their threads, so each worker still finds its own slot.
fn handles_program(bad_slot: i32) -> String {
    format!(
        r#"
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>
pthread_t hs[3];
atomic_int ready;
int hits[3];
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static void *work(void *arg) {{
    (void)arg;
    while (!atomic_load(&ready))
        ;
    int mine = -1;
    for (int i = 0; i < 3; i++)
        if (pthread_equal(pthread_self(), hs[i]))
            mine = i;
    assert(mine >= 0);
    pthread_mutex_lock(&m);
    hits[mine]++;
    pthread_mutex_unlock(&m);
    assert(mine != {bad_slot}); /*BAD*/
    return 0;
}}
int main(void) {{
    for (int i = 0; i < 3; i++)
        pthread_create(&hs[i], 0, work, 0);
    atomic_store(&ready, 1);
    pthread_join(hs[2], 0);
    pthread_join(hs[0], 0);
    pthread_join(hs[1], 0);
    for (int i = 0; i < 3; i++)
        assert(hits[i] == 1);
    return 0;
}}
"#
    )
}

#[test]
fn handles_compared_with_pthread_self_and_joined_keep_their_meaning() {
    for opt in ["-O0", "-O1"] {
        let ok = handles_program(7);
        assert_pass(&run(&ok, opt, true), opt);
        let bad = handles_program(1);
        let line = line_of(&bad, "/*BAD*/");
        for symmetry in [true, false] {
            let r = run(&bad, opt, symmetry);
            assert_failure(&r, ErrorKind::Assertion, Some(line), opt);
        }
    }
}

/// Detached identical workers racing on a counter: the failing path goes through
/// representatives whose threads are renumbered, and must still replay to the assertion
/// (its line is where the replayed failing thread stopped) with the output it printed.
const LOST_UPDATE: &str = r#"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <assert.h>
int x;
atomic_int done;
static void *work(void *arg) {
    (void)arg;
    int v = x;
    x = v + 1;
    printf("w%d\n", v);
    atomic_fetch_add(&done, 1);
    return 0;
}
int main(void) {
    for (int i = 0; i < 3; i++) {
        pthread_t t;
        pthread_create(&t, 0, work, 0);
        pthread_detach(t);
    }
    while (atomic_load(&done) != 3)
        ;
    assert(x == 3); /*HERE*/
    return 0;
}
"#;

/// Workers that fail themselves, after a step that renumbers them.
const WORKER_FAILS: &str = r#"
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>
atomic_int turn;
volatile int seen;
static void *work(void *arg) {
    (void)arg;
    int me = atomic_fetch_add(&turn, 1);
    seen = me;
    assert(seen == me); /*HERE*/
    return 0;
}
int main(void) {
    for (int i = 0; i < 3; i++) {
        pthread_t t;
        pthread_create(&t, 0, work, 0);
        pthread_detach(t);
    }
    return 0;
}
"#;

#[test]
fn counterexamples_of_symmetric_threads_replay_to_the_error() {
    for src in [LOST_UPDATE, WORKER_FAILS] {
        let line = line_of(src, "/*HERE*/");
        for opt in ["-O0", "-O1"] {
            for jobs in [1, 2] {
                let mut opts = options();
                opts.jobs = jobs;
                let with = check_with(src, opt, &[], &opts);
                opts.machine.symmetry = false;
                let without = check_with(src, opt, &[], &opts);
                assert_failure(&with, ErrorKind::Assertion, Some(line), opt);
                assert_failure(&without, ErrorKind::Assertion, Some(line), opt);
                let cex = with.counterexample.as_ref().expect("counterexample");
                assert_eq!(cex.output, with.output, "{opt}: output of the replay");
                let printed = cex.steps.iter().filter(|s| !s.output.is_empty()).count();
                assert_eq!(
                    printed,
                    with.output.lines().count(),
                    "{opt}: each printed line comes from a replayed step"
                );
            }
        }
    }
}

/// Corpus programs using each primitive whose state names threads: mutexes, condition
/// variables, rwlocks, barriers, once, keys, thread-locals, joins by handle, C11 and
/// C++ threads, atomic sections, cancellation.
const CORPUS: &[&str] = &[
    "tests/programs/threads/mutex_counter.c",
    "tests/programs/threads/condvar_prodcons.c",
    "tests/programs/threads/rwlock.c",
    "tests/programs/threads/barrier.c",
    "tests/programs/threads/once.c",
    "tests/programs/threads/keys.c",
    "tests/programs/threads/thread_local.c",
    "tests/programs/threads/c11_threads.c",
    "tests/programs/threads/verifier_atomic.c",
    "tests/programs/threads/tso_choose_threads.c",
    "tests/programs/threads/semaphore_wait_variants.c",
    "tests/programs/cancel/cleanup_handler_calls_library.c",
    "bench/programs/mutex3.c",
    "bench/programs/mcs4.c",
];

/// Every state of `src` (up to 3000) through both checks; (states checked by
/// `SymmetryCheck`, states rebuilt by `DecodeCheck`).
fn symmetry_checked(src: &str, opt: &str, races: RacePolicy, what: &str) -> (u64, u64) {
    let mut counts = (0, 0);
    let sym = Arc::new(SymmetryCheck::new(false));
    let decode = Arc::new(DecodeCheck::new(false));
    let observers: [Arc<dyn tso_engine::explore::StateCheck>; 2] = [sym.clone(), decode.clone()];
    for observer in observers {
        let mut opts = options();
        opts.observer = Some(observer);
        opts.limits.max_states = Some(3000);
        opts.machine.races = races;
        let r = check_with(src, opt, &[], &opts);
        if let Some(f) = &r.failure {
            assert!(
                !f.message.starts_with("thread symmetry")
                    && !f.message.starts_with("state decoding"),
                "{what}: {}",
                f.message
            );
        }
        assert!(r.verdict != Verdict::Error, "{what}: {:?}", r.failure);
    }
    counts.0 += sym.permuted();
    counts.1 += decode.checked();
    counts
}

#[test]
fn renamed_threads_step_like_the_originals() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut permuted = 0;
    for file in CORPUS {
        let src = std::fs::read_to_string(root.join(file)).expect("read program");
        permuted += symmetry_checked(&src, "-O1", RacePolicy::Allow, file).0;
    }
    for (i, src) in [MUTEX_COUNTER, DISTINCT_ARGUMENTS, LOST_UPDATE]
        .into_iter()
        .enumerate()
    {
        for opt in ["-O0", "-O1"] {
            let (p, d) = symmetry_checked(src, opt, RacePolicy::Allow, &format!("#{i} {opt}"));
            assert!(p > 10 && d > 10, "#{i} {opt}: {p} renamed, {d} rebuilt");
            permuted += p;
        }
    }
    let handles = handles_program(7);
    permuted += symmetry_checked(&handles, "-O1", RacePolicy::Allow, "handles").0;
    assert!(permuted > 2000, "only {permuted} states renamed");
}

/// Race data is thread-indexed and not renamed: with races tracked, symmetry is off
/// and states are stored as they are (the same count as without it).
#[test]
fn race_tracking_turns_symmetry_off() {
    let mut opts = options();
    opts.machine.races = RacePolicy::Warn;
    let with = check_with(MUTEX_COUNTER, "-O1", &[], &opts);
    opts.machine.symmetry = false;
    let without = check_with(MUTEX_COUNTER, "-O1", &[], &opts);
    assert_pass(&with, "races warn");
    assert_eq!(with.stats.states, without.stats.states);
}
