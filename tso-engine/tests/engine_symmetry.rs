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
use tso_engine::{CheckReport, DecodeCheck, ErrorKind, RacePolicy, SymmetryCheck, Verdict};

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
    let observers: [Arc<dyn tso_engine::StateCheck>; 2] = [sym.clone(), decode.clone()];
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
            // With race data too: renamed with the threads (`race/permute.rs`).
            for races in [RacePolicy::Allow, RacePolicy::Warn] {
                let what = format!("#{i} {opt} {races:?}");
                let (p, d) = symmetry_checked(src, opt, races, &what);
                assert!(p > 10 && d > 10, "{what}: {p} renamed, {d} rebuilt");
                permuted += p;
            }
        }
    }
    let handles = handles_program(7);
    permuted += symmetry_checked(&handles, "-O1", RacePolicy::Allow, "handles").0;
    assert!(permuted > 2000, "only {permuted} states renamed");
}

/// The locations of a run's race reports. (Which accesses a report names is the least
/// pair the search met, and thread numbers are those of representatives: symmetric
/// threads may trade places in it.)
fn race_locations(r: &tso_engine::CheckReport) -> std::collections::BTreeSet<String> {
    r.races.iter().map(|x| x.location.clone()).collect()
}

/// Race data is renamed with the threads (`race/permute.rs`): with races tracked,
/// symmetry applies, and verdicts, outcomes and the races reported stay.
#[test]
fn race_tracking_keeps_symmetry() {
    for races in [RacePolicy::Warn, RacePolicy::Deny] {
        for src in [MUTEX_COUNTER, LOST_UPDATE] {
            let mut opts = options();
            opts.collect_outcomes = true;
            opts.machine.races = races;
            let with = check_with(src, "-O1", &[], &opts);
            opts.machine.symmetry = false;
            let without = check_with(src, "-O1", &[], &opts);
            let what = format!("{races:?}");
            assert_eq!(with.verdict, without.verdict, "{what}: {:?}", with.failure);
            assert_eq!(
                with.failure.as_ref().map(|f| f.kind),
                without.failure.as_ref().map(|f| f.kind),
                "{what}"
            );
            assert_eq!(with.outcomes, without.outcomes, "{what}");
            assert_eq!(race_locations(&with), race_locations(&without), "{what}");
            if with.verdict == Verdict::Pass {
                assert!(
                    with.stats.states < without.stats.states,
                    "{what}: {} states with symmetry, {} without",
                    with.stats.states,
                    without.stats.states
                );
            }
        }
    }
}

/// Three workers of one routine: each reads `data` only after it acquired `ready`,
/// which `main` releases after writing it, so there is no race. Their clocks differ
/// (one acquired, one not yet): states where the canonical order renames them are
/// race-free only if each clock moves with its thread. `RACY` reads `data` whatever it
/// saw, a race some interleavings have.
fn publication(racy: bool) -> String {
    let read = if racy {
        "seen += data;"
    } else {
        "if (seen) seen += data;"
    };
    format!(
        r#"
#include <pthread.h>
#include <stdatomic.h>
int data;
atomic_int ready;
atomic_int sum;
static void *work(void *arg) {{
    (void)arg;
    int seen = atomic_load_explicit(&ready, memory_order_acquire);
    {read}
    atomic_fetch_add_explicit(&sum, seen, memory_order_relaxed);
    return 0;
}}
int main(void) {{
    for (int i = 0; i < 3; i++) {{
        pthread_t t;
        pthread_create(&t, 0, work, 0);
        pthread_detach(t);
    }}
    data = 1;
    atomic_store_explicit(&ready, 1, memory_order_release);
    return 0;
}}
"#
    )
}

#[test]
fn race_verdicts_need_the_clocks_renamed_with_their_threads() {
    // At -O0: at -O1 the compiler may load `data` before testing `seen`, a race.
    for (racy, expect) in [(false, Verdict::Pass), (true, Verdict::Fail)] {
        let opt = "-O0";
        let src = publication(racy);
        let mut opts = options();
        opts.machine.races = RacePolicy::Deny;
        let with = check_with(&src, opt, &[], &opts);
        opts.machine.symmetry = false;
        let without = check_with(&src, opt, &[], &opts);
        let what = format!("racy {racy} {opt}");
        assert_eq!(with.verdict, expect, "{what}: {:?}", with.failure);
        assert_eq!(without.verdict, expect, "{what}: {:?}", without.failure);
        if racy {
            assert_eq!(with.failure.map(|f| f.kind), Some(ErrorKind::DataRace));
        } else {
            assert!(
                with.stats.states < without.stats.states,
                "{what}: no state merged"
            );
        }
        // Every state's renamed copy steps like it, race data included.
        let (renamed, _) = symmetry_checked(&src, opt, RacePolicy::Warn, &what);
        assert!(renamed > 10, "{what}: {renamed} states renamed");
    }
}

/// Workers started by a loop over an array of handles, where the array's order
/// matters: `main` joins `t[0]` and then checks a flag only the first worker to take a
/// ticket sets (it fails when `t[0]`'s worker took the second ticket), or workers get
/// distinct arguments and `main` reads what `t[0]`'s wrote. Whatever symmetry merges,
/// verdicts, outcomes and races stay those of the run without it (see
/// `store/symmetry.rs`, "Handles kept in an array").
#[test]
fn handle_order_that_matters_is_kept() {
    const FIRST_TICKET: &str = r#"
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>
atomic_int ticket;
atomic_int first_done;
static void *work(void *arg) {
    (void)arg;
    if (atomic_fetch_add(&ticket, 1) == 0)
        atomic_store(&first_done, 1);
    return 0;
}
int main(void) {
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], 0, work, 0);
    pthread_join(t[0], 0);
    assert(atomic_load(&first_done));
    for (int i = 1; i < 3; i++)
        pthread_join(t[i], 0);
    return 0;
}
"#;
    const OWN_RESULT: &str = r#"
#include <pthread.h>
#include <stdio.h>
int result[3];
int shared;
static void *work(void *arg) {
    long i = (long)arg;
    result[i] = (int)i + 1;
    if (i == 2)
        shared = 1;
    return 0;
}
int main(void) {
    pthread_t t[3];
    for (long i = 0; i < 3; i++)
        pthread_create(&t[i], 0, work, (void *)i);
    pthread_join(t[0], 0);
    printf("%d %d\n", result[0], shared);
    for (int i = 1; i < 3; i++)
        pthread_join(t[i], 0);
    return 0;
}
"#;
    for (src, expect) in [(FIRST_TICKET, Verdict::Fail), (OWN_RESULT, Verdict::Pass)] {
        for opt in ["-O0", "-O1"] {
            for races in [RacePolicy::Allow, RacePolicy::Warn] {
                let mut opts = options();
                opts.collect_outcomes = true;
                opts.machine.races = races;
                let with = check_with(src, opt, &[], &opts);
                opts.machine.symmetry = false;
                let without = check_with(src, opt, &[], &opts);
                let what = format!("{opt} {races:?}");
                assert_eq!(with.verdict, expect, "{what}: {:?}", with.failure);
                assert_eq!(without.verdict, expect, "{what}: {:?}", without.failure);
                assert_eq!(with.outcomes, without.outcomes, "{what}");
                assert_eq!(race_locations(&with), race_locations(&without), "{what}");
            }
        }
    }
}

/// The same join-order error with symmetry on: two detached helpers, each started by a
/// function (not inlined) whose handle dies with its frame, keep
/// `handles_pin_every_thread` from turning it off, and are interchangeable. The workers whose handles `main` keeps in `t[2]` are renamed with
/// their handles (`store/symmetry.rs`, "Handles kept in an array"): a canonical form
/// that did not tie each worker to the slot holding its handle could merge the state
/// where `t[0]`'s worker took the first ticket with the one where `t[1]`'s did, and
/// lose the failure.
#[test]
fn join_order_error_is_kept_beside_interchangeable_threads() {
    const FIRST_TICKET_WITH_HELPERS: &str = r#"
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>
atomic_int ticket;
atomic_int first_done;
atomic_int helped;
static void *work(void *arg) {
    (void)arg;
    if (atomic_fetch_add(&ticket, 1) == 0)
        atomic_store(&first_done, 1);
    return 0;
}
static void *help(void *arg) {
    (void)arg;
    atomic_fetch_add(&helped, 1);
    atomic_fetch_add(&helped, 1);
    return 0;
}
__attribute__((noinline)) static void start_helper(void) {
    pthread_t h;
    pthread_create(&h, 0, help, 0);
    pthread_detach(h);
}
int main(void) {
    start_helper();
    start_helper();
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], 0, work, 0);
    pthread_join(t[0], 0);
    assert(atomic_load(&first_done));
    pthread_join(t[1], 0);
    return 0;
}
"#;
    for opt in ["-O0", "-O1"] {
        for races in [RacePolicy::Allow, RacePolicy::Warn] {
            let mut opts = options();
            opts.collect_outcomes = true;
            opts.machine.races = races;
            let with = check_with(FIRST_TICKET_WITH_HELPERS, opt, &[], &opts);
            opts.machine.symmetry = false;
            let without = check_with(FIRST_TICKET_WITH_HELPERS, opt, &[], &opts);
            let what = format!("{opt} {races:?}");
            assert!(
                with.stats.symmetry.as_ref().is_some_and(|g| !g.is_empty()),
                "{what}: symmetry found no interchangeable threads: {:?}",
                with.stats.symmetry
            );
            assert_eq!(with.verdict, Verdict::Fail, "{what}: {:?}", with.failure);
            assert_eq!(without.verdict, Verdict::Fail, "{what}");
            assert_eq!(
                with.failure.as_ref().map(|f| f.kind),
                Some(ErrorKind::Assertion),
                "{what}"
            );
            assert_eq!(with.outcomes, without.outcomes, "{what}");
        }
    }
}

/// Handles in an array that `main` joins only in part: the two programs meet the
/// join-array condition as first proposed (every use of `t` is `&t[i]` given to
/// `pthread_create` or `t[i]` given to `pthread_join`, nothing visible between the
/// first join and the last, trivially, as there is one), and a canonical form that
/// sorted the unjoined slots by their threads' keys would lose each failure for one
/// of the two orders the keys can put a finished thread and a running one in:
/// `main` waits until both workers took a ticket, then joins `t[0]` alone. In
/// `LATE_STORE` it fails when `t[0]`'s worker is the one that returned at once and the
/// other has not stored `late` yet; in `SPIN` it hangs when `t[0]`'s worker is the one
/// that spins on a flag nobody sets (`main` never returns), and passes when it is the
/// other. So the slots are interchangeable only when `main` joins every one of them
/// exactly once (`store/symmetry.rs`, "Joining the array in another order"). Both must
/// keep their failure with symmetry on, whatever it merges, and with the join-array
/// rule on (`MachineOptions::join_slots`), which must refuse them.
#[test]
fn a_slot_main_never_joins_keeps_its_failure() {
    const LATE_STORE: &str = r#"
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>
atomic_int ticket;
atomic_int late;
static void *work(void *arg) {
    (void)arg;
    if (atomic_fetch_add(&ticket, 1) == 1)
        atomic_store(&late, 1);
    return 0;
}
int main(void) {
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], 0, work, 0);
    while (atomic_load(&ticket) < 2)
        ;
    pthread_join(t[0], 0);
    assert(atomic_load(&late));
    return 0;
}
"#;
    const SPIN: &str = r#"
#include <pthread.h>
#include <stdatomic.h>
atomic_int ticket;
atomic_int go;
static void *work(void *arg) {
    (void)arg;
    if (atomic_fetch_add(&ticket, 1) == 0)
        while (!atomic_load(&go))
            ;
    return 0;
}
int main(void) {
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], 0, work, 0);
    while (atomic_load(&ticket) < 2)
        ;
    pthread_join(t[0], 0);
    return 0;
}
"#;
    fails_in_every_configuration(LATE_STORE, ErrorKind::Assertion, false, "late store");
    fails_in_every_configuration(SPIN, ErrorKind::NonTerminating, false, "spin");
}

/// Asserts that `src` fails with `kind` at -O0 and -O1 with symmetry alone, with the
/// join-array rule too, and with neither: what each counterexample to the rule below
/// must keep, whatever the search merges.
fn fails_in_every_configuration(
    src: &str,
    kind: ErrorKind,
    allow_nontermination: bool,
    label: &str,
) {
    for opt in ["-O0", "-O1"] {
        for (symmetry, join_slots) in [(true, false), (true, true), (false, false)] {
            let mut opts = options();
            opts.machine.symmetry = symmetry;
            opts.machine.join_slots = join_slots;
            opts.machine.allow_nontermination = allow_nontermination;
            let r = check_with(src, opt, &[], &opts);
            let what = format!(
                "{label} {opt} symmetry {symmetry} join slots {join_slots} \
                 allow_nontermination {allow_nontermination}"
            );
            assert_eq!(r.verdict, Verdict::Fail, "{what}: {:?}", r.failure);
            assert_eq!(r.failure.as_ref().map(|f| f.kind), Some(kind), "{what}");
        }
    }
}

/// `main` joins `t[0]` twice: the second join is a misuse once `t[0]`'s worker has
/// finished, and `t[0]`'s worker is the one that can finish only in some
/// arrangements. With `--allow-nontermination`, a spinning `t[0]` worker only stops
/// (no error), so the misuse is the one failure: merging the arrangement where `t[0]`
/// holds the finisher with the one where it holds the spinner (the slots' threads are
/// unjoined and no register holds their handles until `main` reads `t[0]`) would lose
/// it for one order of their keys. The slots must be joined at most once each.
#[test]
fn a_slot_joined_twice_keeps_its_failure() {
    const TWICE: &str = r#"
#include <pthread.h>
#include <stdatomic.h>
atomic_int ticket;
atomic_int go;
static void *work(void *arg) {
    (void)arg;
    if (atomic_fetch_add(&ticket, 1) == 0)
        while (!atomic_load(&go))
            ;
    return 0;
}
int main(void) {
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], 0, work, 0);
    while (atomic_load(&ticket) < 2)
        ;
    pthread_join(t[0], 0);
    pthread_join(t[0], 0);
    pthread_join(t[1], 0);
    return 0;
}
"#;
    fails_in_every_configuration(TWICE, ErrorKind::PthreadMisuse, true, "joined twice");
}

/// Even when `main` joins every slot exactly once with nothing visible in between,
/// which thread it waits for decides the verdict: `main` holds a mutex across its
/// joins, the worker that takes the first ticket blocks on it, the other spins on a
/// flag nobody sets. Joining the locker first closes a wait cycle (`deadlock`);
/// joining the spinner first leaves `main` behind a loop, which
/// `--allow-nontermination` stops without an error: that arrangement alone passes.
/// `main` reads no slot until both workers took their tickets, so a canonical form
/// sorting the unjoined slots by their threads' keys would keep one arrangement only;
/// the loop forwards and backwards, or the two roles' code in the other order, make
/// each of the two key orders the one that would lose the deadlock. The join-array
/// rule recognises the forward loops, and keeps the deadlock there only by its
/// condition that no thread can wait on `main` (`store/symmetry.rs`, "Joining the
/// array in another order", (4)).
#[test]
fn the_thread_main_waits_for_first_keeps_its_deadlock() {
    let program = |joins: &str, roles: &str| {
        format!(
            r#"
#include <pthread.h>
#include <stdatomic.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
atomic_int ticket;
atomic_int go;
static void *work(void *arg) {{
    (void)arg;
    {roles}
    return 0;
}}
int main(void) {{
    pthread_t t[2];
    pthread_mutex_lock(&m);
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], 0, work, 0);
    while (atomic_load(&ticket) < 2)
        ;
    {joins}
        pthread_join(t[i], 0);
    pthread_mutex_unlock(&m);
    return 0;
}}
"#
        )
    };
    let lock_first = "if (atomic_fetch_add(&ticket, 1) == 0) pthread_mutex_lock(&m); \
                      else while (!atomic_load(&go)) ;";
    let spin_first = "if (atomic_fetch_add(&ticket, 1) == 0) while (!atomic_load(&go)) ; \
                      else pthread_mutex_lock(&m);";
    for (joins, roles) in [
        ("for (int i = 0; i < 2; i++)", lock_first),
        ("for (int i = 1; i >= 0; i--)", lock_first),
        ("for (int i = 0; i < 2; i++)", spin_first),
    ] {
        let src = program(joins, roles);
        for allow_nontermination in [true, false] {
            let label = format!("`{joins}`");
            fails_in_every_configuration(&src, ErrorKind::Deadlock, allow_nontermination, &label);
        }
    }
}

/// Workers whose handles `main` keeps in `t[3]` and joins in a loop with nothing in
/// between: the shape of "Joining the array in another order" (`store/symmetry.rs`).
/// `BAD` is a ticket whose worker fails (-1: none).
fn joined_workers(bad: i32) -> String {
    format!(
        r#"
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>
#include <stdio.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
atomic_int ticket;
int x;
static void *work(void *arg) {{
    (void)arg;
    int my = atomic_fetch_add(&ticket, 1);
    pthread_mutex_lock(&m);
    x += my;
    pthread_mutex_unlock(&m);
    assert(my != {bad}); /*HERE*/
    return 0;
}}
int main(void) {{
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], 0, work, 0);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], 0);
    printf("x=%d\n", x);
    return 0;
}}
"#
    )
}

fn with_join_slots(join_slots: bool) -> tso_engine::CheckOptions {
    let mut opts = options();
    opts.collect_outcomes = true;
    opts.machine.join_slots = join_slots;
    opts
}

/// The join-array rule (on by default) stores the states that differ only in which
/// worker sits in which slot once: fewer states, the same verdict and outcomes, and
/// the array's threads listed as a group, at -O0 and with optimisation (the join loop
/// one block, its index a phi); the same states on two workers.
#[test]
fn join_array_slots_are_merged_without_changing_the_answer() {
    assert!(
        tso_engine::MachineOptions::default().join_slots,
        "on by default"
    );
    let src = joined_workers(-1);
    for opt in ["-O0", "-O1"] {
        let with = check_with(&src, opt, &[], &with_join_slots(true));
        let without = check_with(&src, opt, &[], &with_join_slots(false));
        assert_pass(&with, "with the rule");
        assert_pass(&without, "without");
        assert_eq!(with.outcomes, without.outcomes, "{opt}");
        assert!(
            with.stats.states < without.stats.states,
            "{opt}: {} states with the rule, {} without",
            with.stats.states,
            without.stats.states
        );
        assert_eq!(
            with.stats.symmetry,
            Some(vec![3]),
            "{opt}: the array's group"
        );
        assert_eq!(without.stats.symmetry, Some(vec![]), "{opt}");
    }
    let with = check_with(&src, "-O0", &[], &with_join_slots(true));
    let without = check_with(&src, "-O0", &[], &with_join_slots(false));
    let mut two = with_join_slots(true);
    two.jobs = 2;
    let two = check_with(&src, "-O0", &[], &two);
    assert_eq!(two.stats.states, with.stats.states, "1 and 2 workers");
    // Off with symmetry.
    let mut off = with_join_slots(true);
    off.machine.symmetry = false;
    let off = check_with(&src, "-O0", &[], &off);
    assert_eq!(off.stats.symmetry, None);
    assert_eq!(off.stats.states, without.stats.states);
}

/// Workers started with their index as argument: the join-array rule needs the same
/// argument for each, unless the routine cannot read it (`(void)arg;`, or no use at
/// all with optimisation), when they are as interchangeable as workers given 0.
#[test]
fn join_array_rule_takes_an_argument_the_worker_cannot_read() {
    let given = |arg: &str, read: &str| {
        joined_workers(-1)
            .replace("work, 0);", &format!("work, {arg});"))
            .replace("    (void)arg;\n", read)
    };
    for opt in ["-O0", "-O1"] {
        let zero = check_with(
            &given("0", "    (void)arg;\n"),
            opt,
            &[],
            &with_join_slots(true),
        );
        let ignored = given("(void *)(long)i", "    (void)arg;\n");
        let ignored = check_with(&ignored, opt, &[], &with_join_slots(true));
        assert_pass(&ignored, "ignored");
        assert_eq!(ignored.stats.symmetry, Some(vec![3]), "{opt}: one group");
        assert_eq!(ignored.stats.states, zero.stats.states, "{opt}");
        assert_eq!(ignored.outcomes, zero.outcomes, "{opt}");
        let read = given("(void *)(long)i", "    x += (int)(long)arg;\n");
        let read = check_with(&read, opt, &[], &with_join_slots(true));
        assert_pass(&read, "read");
        assert_eq!(read.stats.symmetry, Some(vec![]), "{opt}: told apart");
    }
}

/// A worker's assertion fails under the join-array rule: the failure is found, and its
/// counterexample (searched again without the rule) replays to the assertion.
#[test]
fn join_array_failure_replays_to_the_assertion() {
    let src = joined_workers(2);
    let line = line_of(&src, "/*HERE*/");
    for jobs in [1, 2] {
        let mut opts = with_join_slots(true);
        opts.jobs = jobs;
        let with = check_with(&src, "-O0", &[], &opts);
        opts.machine.join_slots = false;
        let without = check_with(&src, "-O0", &[], &opts);
        assert_failure(&with, ErrorKind::Assertion, Some(line), "with the rule");
        assert_failure(&without, ErrorKind::Assertion, Some(line), "without");
        let cex = with.counterexample.as_ref().expect("counterexample");
        assert_eq!(
            cex.steps.len(),
            without.counterexample.as_ref().expect("cex").steps.len()
        );
        assert_eq!(cex.output, with.output, "output of the replay");
    }
}

/// `main` does something visible between two joins: the rule does not apply (no
/// group, the same states as without it), and the failure that depends on the join
/// order is kept.
#[test]
fn join_array_rule_needs_nothing_visible_between_joins() {
    const BETWEEN: &str = r#"
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>
atomic_int ticket;
atomic_int first_done;
static void *work(void *arg) {
    (void)arg;
    if (atomic_fetch_add(&ticket, 1) == 0)
        atomic_store(&first_done, 1);
    return 0;
}
int main(void) {
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], 0, work, 0);
    for (int i = 0; i < 3; i++) {
        pthread_join(t[i], 0);
        assert(atomic_load(&first_done));
    }
    return 0;
}
"#;
    let with = check_with(BETWEEN, "-O0", &[], &with_join_slots(true));
    let without = check_with(BETWEEN, "-O0", &[], &with_join_slots(false));
    assert_failure(&with, ErrorKind::Assertion, None, "with the rule");
    assert_eq!(with.stats.symmetry, Some(vec![]), "no group");
    assert_eq!(with.stats.states, without.stats.states);
}

/// A deadlock among the workers and a hang while `main` joins them are still reported
/// under the join-array rule.
#[test]
fn join_array_rule_keeps_deadlocks_and_hangs() {
    let program = |body: &str| {
        format!(
            r#"
#include <pthread.h>
#include <stdatomic.h>
pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
atomic_int ticket;
atomic_int go;
static void *work(void *arg) {{
    (void)arg;
    int my = atomic_fetch_add(&ticket, 1);
    {body}
    return 0;
}}
int main(void) {{
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], 0, work, 0);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], 0);
    return 0;
}}
"#
        )
    };
    let deadlock = program(
        "if (my == 0) { pthread_mutex_lock(&a); pthread_mutex_lock(&b); \
         pthread_mutex_unlock(&b); pthread_mutex_unlock(&a); } \
         else if (my == 1) { pthread_mutex_lock(&b); pthread_mutex_lock(&a); \
         pthread_mutex_unlock(&a); pthread_mutex_unlock(&b); }",
    );
    let hang = program("if (my == 2) while (!atomic_load(&go)) ;");
    for (src, kind) in [
        (deadlock, ErrorKind::Deadlock),
        (hang, ErrorKind::NonTerminating),
    ] {
        let with = check_with(&src, "-O0", &[], &with_join_slots(true));
        let without = check_with(&src, "-O0", &[], &with_join_slots(false));
        assert_failure(&with, kind, None, "with the rule");
        assert_failure(&without, kind, None, "without");
        assert_eq!(
            with.stats.symmetry,
            Some(vec![3]),
            "{kind:?}: the rule applied"
        );
        assert!(with.counterexample.is_some());
    }
}

/// The hang check runs moves again from stored states and looks their successors up
/// in the store (`explore/liveness.rs`): under the join-array rule each must be stored
/// as the search stores it, with the array's slots sorted. Here the worker with the
/// first ticket spins over two loads, so states differ in which slot's worker is
/// between them, and `main` waits for both tickets before it joins: the successors run
/// again included unsorted ones, which the store did not have, and the run stopped
/// inconclusive instead of `non-terminating`.
#[test]
fn join_array_hang_check_finds_the_successors_it_runs_again() {
    const SPIN_ON_TWO: &str = r#"
#include <pthread.h>
#include <stdatomic.h>
atomic_int ticket, flag, stop;
static void *work(void *arg) {
    (void)arg;
    if (atomic_fetch_add(&ticket, 1) == 0)
        while (atomic_load(&flag) == 0 && atomic_load(&stop) == 0)
            ;
    return 0;
}
int main(void) {
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], 0, work, 0);
    while (atomic_load(&ticket) < 2)
        ;
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], 0);
    return 0;
}
"#;
    for jobs in [1, 2] {
        let mut opts = with_join_slots(true);
        opts.jobs = jobs;
        let with = check_with(SPIN_ON_TWO, "-O0", &[], &opts);
        assert_failure(&with, ErrorKind::NonTerminating, None, "with the rule");
        assert_eq!(with.stats.symmetry, Some(vec![2]), "the rule applied");
        assert!(with.counterexample.is_some(), "a trace into the hang");
        opts.machine.join_slots = false;
        let without = check_with(SPIN_ON_TWO, "-O0", &[], &opts);
        assert_failure(&without, ErrorKind::NonTerminating, None, "without");
        assert_eq!(
            with.counterexample.as_ref().map(|c| c.steps.len()),
            without.counterexample.as_ref().map(|c| c.steps.len()),
            "the same shortest trace"
        );
    }
}
