//! Partial-order reduction (sleep sets): the same states and verdicts as the full
//! search, fewer transitions where threads touch different memory.

mod engine_support;

use engine_support::{check_bc, compile, options};
use tso_engine::{CheckReport, ErrorKind, RacePolicy, Verdict};

const PRELUDE: &str = "#include <assert.h>\n#include <pthread.h>\n#include <stdio.h>\n";

/// How a program is checked beside the reduction.
#[derive(Clone, Copy)]
struct Config {
    symmetry: bool,
    races: RacePolicy,
}

const PLAIN: Config = Config {
    symmetry: false,
    races: RacePolicy::Allow,
};

fn run_with(src: &str, por: bool, jobs: usize, config: Config) -> CheckReport {
    let bc = compile(src, "-O1", &[]);
    let mut opts = options();
    opts.machine.por = por;
    opts.machine.symmetry = config.symmetry;
    opts.machine.races = config.races;
    opts.jobs = jobs;
    opts.collect_outcomes = true;
    check_bc(&bc, &opts)
}

fn run(src: &str, por: bool, jobs: usize) -> CheckReport {
    run_with(src, por, jobs, PLAIN)
}

/// Checks `src` with and without the reduction, on one and two workers: the verdicts,
/// state counts, outcomes and races found must agree; returns (transitions with,
/// without) on one worker.
fn compare_with(src: &str, config: Config) -> (u64, u64) {
    let full = run_with(src, false, 1, config);
    let mut with = 0;
    for jobs in [1, 2] {
        let reduced = run_with(src, true, jobs, config);
        assert_eq!(reduced.verdict, full.verdict, "-j{jobs}");
        assert_eq!(reduced.outcomes, full.outcomes, "-j{jobs}");
        assert_eq!(
            reduced.failure.as_ref().map(|f| f.kind),
            full.failure.as_ref().map(|f| f.kind),
            "-j{jobs}"
        );
        assert_eq!(reduced.stats.states, full.stats.states, "-j{jobs}: states");
        let locations = |r: &CheckReport| -> Vec<String> {
            r.races.iter().map(|r| r.location.clone()).collect()
        };
        assert_eq!(locations(&reduced), locations(&full), "-j{jobs}: races");
        assert!(
            reduced.stats.transitions <= full.stats.transitions,
            "-j{jobs}"
        );
        if jobs == 1 {
            with = reduced.stats.transitions;
        }
    }
    (with, full.stats.transitions)
}

fn compare(src: &str) -> (u64, u64) {
    compare_with(src, PLAIN)
}

#[test]
fn threads_writing_different_globals_need_fewer_transitions() {
    let src = format!(
        "{PRELUDE}volatile int a, b, c;
void *ta(void *p) {{ for (int i = 0; i < 3; i++) a = a + 1; return p; }}
void *tb(void *p) {{ for (int i = 0; i < 3; i++) b = b + 1; return p; }}
void *tc(void *p) {{ for (int i = 0; i < 3; i++) c = c + 1; return p; }}
int main(void) {{ pthread_t x, y, z;
    pthread_create(&x, NULL, ta, NULL); pthread_create(&y, NULL, tb, NULL);
    pthread_create(&z, NULL, tc, NULL);
    pthread_join(x, NULL); pthread_join(y, NULL); pthread_join(z, NULL);
    printf(\"%d %d %d\\n\", a, b, c); return 0; }}"
    );
    let (with, without) = compare(&src);
    assert!(
        with * 3 / 2 < without,
        "independent writers: {with} transitions with the reduction, {without} without"
    );
}

#[test]
fn threads_racing_on_one_global_keep_every_outcome() {
    // Every transition writes `x`: nothing is independent, every order is explored.
    let src = format!(
        "{PRELUDE}int x;
void *t(void *p) {{ int v = x; x = v + (int)(long)p; return NULL; }}
int main(void) {{ pthread_t a, b;
    pthread_create(&a, NULL, t, (void *)1); pthread_create(&b, NULL, t, (void *)10);
    pthread_join(a, NULL); pthread_join(b, NULL);
    printf(\"%d\\n\", x); return 0; }}"
    );
    compare(&src);
    let r = run(&src, true, 1);
    let want: std::collections::BTreeSet<String> = ["1\n", "10\n", "11\n"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(r.outcomes, want);
}

#[test]
fn an_error_behind_independent_steps_is_found_with_the_shortest_path() {
    let src = format!(
        "{PRELUDE}int a, b, flag;
void *ta(void *p) {{ a = 1; a = 2; flag = 1; return p; }}
void *tb(void *p) {{ b = 1; b = 2; assert(flag == 0 || a == 2); return p; }}
void *tc(void *p) {{ if (flag) a = 3; return p; }}
int main(void) {{ pthread_t x, y, z;
    pthread_create(&x, NULL, ta, NULL); pthread_create(&y, NULL, tb, NULL);
    pthread_create(&z, NULL, tc, NULL);
    pthread_join(x, NULL); pthread_join(y, NULL); pthread_join(z, NULL); return 0; }}"
    );
    let full = run(&src, false, 1);
    for jobs in [1, 2] {
        let reduced = run(&src, true, jobs);
        assert_eq!(reduced.verdict, Verdict::Fail);
        assert_eq!(
            reduced.failure.as_ref().map(|f| f.kind),
            Some(ErrorKind::Assertion)
        );
        // A failing run's path and figures come from the unreduced breadth-first search.
        assert_eq!(reduced.stats.states, full.stats.states);
        assert_eq!(
            reduced.counterexample.as_ref().map(|c| c.steps.len()),
            full.counterexample.as_ref().map(|c| c.steps.len())
        );
    }
}

#[test]
fn a_deadlock_between_locks_is_found() {
    let src = format!("{PRELUDE}pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER, m2 = PTHREAD_MUTEX_INITIALIZER; int u, v;
void *o(void *p) {{ u = 1; pthread_mutex_lock(&m2); pthread_mutex_lock(&m1); pthread_mutex_unlock(&m1); pthread_mutex_unlock(&m2); return p; }}
int main(void) {{ pthread_t t; pthread_create(&t, NULL, o, NULL); v = 1;
    pthread_mutex_lock(&m1); pthread_mutex_lock(&m2); pthread_mutex_unlock(&m2); pthread_mutex_unlock(&m1);
    pthread_join(t, NULL); return 0; }}");
    compare(&src);
    assert_eq!(
        run(&src, true, 1).failure.map(|f| f.kind),
        Some(ErrorKind::Deadlock)
    );
}

/// Identical threads (one routine, one argument) that take a slot each and write it:
/// thread symmetry merges the states where they are permuted, and the store renames
/// threads into each representative's order, so sleep sets must be renamed with them.
const SLOT_WRITERS: &str = "#include <stdatomic.h>
volatile int slot[3], steps = 3; atomic_int next, done;
void *w(void *p) {
    int i = atomic_fetch_add(&next, 1);
    for (int k = steps; k > 0; k--) slot[i] = k;
    atomic_fetch_add(&done, 1); return p; }
int main(void) {
    for (int i = 0; i < 3; i++) { pthread_t t; pthread_create(&t, NULL, w, NULL); pthread_detach(t); }
    while (atomic_load(&done) != 3) ;
    printf(\"%d %d %d\\n\", slot[0], slot[1], slot[2]); return 0; }";

#[test]
fn the_reduction_works_with_thread_symmetry() {
    let src = format!("{PRELUDE}{SLOT_WRITERS}");
    let config = Config {
        symmetry: true,
        races: RacePolicy::Allow,
    };
    let (with, without) = compare_with(&src, config);
    assert!(with < without, "{with} transitions with, {without} without");
    // Symmetry merged something: fewer states than without it.
    let plain = run(&src, true, 1);
    let symmetric = run_with(&src, true, 1, config);
    assert!(symmetric.stats.states < plain.stats.states);
    assert_eq!(symmetric.outcomes, plain.outcomes);
}

#[test]
fn the_reduction_finds_every_race_with_race_data() {
    // `x` races between the writers and the reader; `a` and `b` are each one thread's.
    let src = format!(
        "{PRELUDE}int a, b, x;
void *ta(void *p) {{ a = 1; x = 1; a = 2; return p; }}
void *tb(void *p) {{ b = 1; b = 2; if (x) b = 3; return p; }}
void *tc(void *p) {{ int v = a; return (void *)(long)v; }}
int main(void) {{ pthread_t t1, t2, t3;
    pthread_create(&t1, NULL, ta, NULL); pthread_create(&t2, NULL, tb, NULL);
    pthread_create(&t3, NULL, tc, NULL);
    pthread_join(t1, NULL); pthread_join(t2, NULL); pthread_join(t3, NULL);
    printf(\"%d %d\\n\", a, b); return 0; }}"
    );
    let config = Config {
        symmetry: true,
        races: RacePolicy::Warn,
    };
    let (with, without) = compare_with(&src, config);
    assert!(with < without, "{with} transitions with, {without} without");
    let r = run_with(&src, true, 1, config);
    let mut locations: Vec<String> = r.races.iter().map(|r| r.location.clone()).collect();
    locations.sort();
    assert_eq!(locations, ["a", "x"]);
}

#[test]
fn with_race_data_two_readers_of_one_byte_commute() {
    // Reads of `x` each add themselves to its access history; in either order the
    // history holds the same accesses, and the store must see the same states.
    let src = format!(
        "{PRELUDE}int x, y;
void *r1(void *p) {{ int v = x; int w = x; return (void *)(long)(v + w); }}
void *r2(void *p) {{ int v = x; return (void *)(long)v; }}
void *wr(void *p) {{ y = 1; x = 1; return p; }}
int main(void) {{ pthread_t t1, t2, t3;
    pthread_create(&t1, NULL, r1, NULL); pthread_create(&t2, NULL, r2, NULL);
    pthread_create(&t3, NULL, wr, NULL);
    pthread_join(t1, NULL); pthread_join(t2, NULL); pthread_join(t3, NULL);
    return 0; }}"
    );
    let (with, without) = compare_with(
        &src,
        Config {
            symmetry: false,
            races: RacePolicy::Warn,
        },
    );
    assert!(with < without, "{with} transitions with, {without} without");
}

#[test]
fn with_race_data_reads_that_report_a_race_are_ordered() {
    // Both readers race with the half-word write. The first to report marks the bytes
    // it read as raced, so the other records only the rest: the two reads no longer
    // commute, though neither writes memory.
    let src = format!(
        "{PRELUDE}#include <stdint.h>
volatile uint64_t v;
void *r1(void *p) {{ uint64_t x = v; return (void *)(uintptr_t)x; }}
void *r2(void *p) {{ uint32_t x = __sync_val_compare_and_swap((volatile uint32_t *)&v, 7u, 9u);
    return (void *)(uintptr_t)x; }}
void *w(void *p) {{ *(volatile uint16_t *)((volatile char *)&v + 2) = 1; return p; }}
int main(void) {{ pthread_t t[3]; void *(*body[3])(void *) = {{r1, r2, w}};
    for (int i = 0; i < 3; i++) pthread_create(&t[i], NULL, body[i], NULL);
    for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
    return 0; }}"
    );
    compare_with(
        &src,
        Config {
            symmetry: false,
            races: RacePolicy::Warn,
        },
    );
}

#[test]
fn a_search_where_little_sleeps_stops_recording_and_keeps_every_state() {
    // Every step of every thread touches `x`: nothing sleeps, and past the first
    // sample (`sleep::Payoff`) successors get empty sleep sets. The states stored
    // before and after the switch are those of the full search.
    let src = format!(
        "{PRELUDE}volatile int x;
void *t(void *p) {{ for (int i = 0; i < 3; i++) x = x + 1; return p; }}
int main(void) {{ pthread_t a[3];
    for (int i = 0; i < 3; i++) pthread_create(&a[i], NULL, t, NULL);
    for (int i = 0; i < 3; i++) pthread_join(a[i], NULL);
    printf(\"%d\\n\", x); return 0; }}"
    );
    let (with, without) = compare(&src);
    assert!(without > 20_000, "too small to pass the sample: {without}");
    assert!(with <= without);
}
