//! Race tracking's rule for globals that only atomic operations name
//! (`race/atomic_only.rs`): their accesses keep no history, so they split no states,
//! while a global also named by a plain access keeps its races, and a plain access that
//! reaches such a global through a made-up pointer is unsupported, never a pass. And
//! races found from states the breadth-first search rebuilt from the store are
//! reported with both accesses' source lines and the objects' own names. A search
//! that answers the race screen tells its caller once when the answer will not be
//! no-conflict.

mod engine_support;

use engine_support::*;
use tso_engine::{ErrorKind, RacePolicy, RaceScreen, Verdict};

/// Two workers add to `counter` atomically three times; `plain_read` is what main does after the
/// joins (`{}`: nothing), `worker_read` what each worker does after its adds.
fn counter(plain_read: &str, worker_read: &str) -> String {
    format!(
        r#"
#include <pthread.h>
int counter;
static void *work(void *a) {{
    (void)a;
    for (int i = 0; i < 3; i++) {{
        __atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST);
    }}
    {worker_read}
    return 0;
}}
int main(void) {{
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, work, 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
    {plain_read}
    return 0;
}}
"#
    )
}

fn states(src: &str, races: RacePolicy) -> (Verdict, u64, usize) {
    let mut opts = options();
    opts.machine.races = races;
    let r = check_with(src, "-O1", &[], &opts);
    (r.verdict, r.stats.states, r.races.len())
}

#[test]
fn an_atomic_only_global_splits_no_states() {
    // `counter` is only ever updated atomically: who has seen which update (a history
    // keeps an access while another thread does not know it) must not make states.
    let src = counter("", "");
    let (v, without, _) = states(&src, RacePolicy::Allow);
    assert_eq!(v, Verdict::Pass);
    let (v, with, races) = states(&src, RacePolicy::Warn);
    assert_eq!((v, races), (Verdict::Pass, 0));
    assert_eq!(
        with, without,
        "race tracking split states on an atomic-only global"
    );
}

#[test]
fn a_global_also_accessed_plainly_keeps_its_races() {
    // Main reads `counter` plainly after joining both workers: ordered, no race.
    let joined = counter("if (counter != 6) return 1;", "");
    let (v, _, _) = states(&joined, RacePolicy::Deny);
    assert_eq!(v, Verdict::Pass);
    // A worker reads it plainly while the other may still add: a race with an atomic.
    let racy = counter("", "if (counter > 100) return (void *)1;");
    let mut opts = options();
    opts.machine.races = RacePolicy::Deny;
    let r = check_with(&racy, "-O1", &[], &opts);
    assert_failure(
        &r,
        ErrorKind::DataRace,
        None,
        "plain read against atomic adds",
    );
    let message = &r.failure.as_ref().expect("a failure").message;
    assert!(message.contains("counter"), "{message}");
}

#[test]
fn a_made_up_pointer_to_an_atomic_only_global_is_unsupported() {
    // `target` is named only by atomic adds, but the worker reaches it through an
    // address computed from `before`'s (globals are laid out one object after another:
    // the next object number is `before`'s plus one in the pointer's upper half).
    let src = r#"
#include <pthread.h>
#include <stdint.h>
int before;
int target;
static void *work(void *a) {
    (void)a;
    __atomic_fetch_add(&target, 1, __ATOMIC_SEQ_CST);
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, work, 0);
    volatile uintptr_t step = (uintptr_t)1 << 32;
    int *p = (int *)((uintptr_t)&before + step);
    *p = 5;
    pthread_join(t, 0);
    return 0;
}
"#;
    let mut opts = options();
    opts.machine.races = RacePolicy::Warn;
    let r = check_with(src, "-O0", &[], &opts);
    assert_failure(
        &r,
        ErrorKind::Unsupported,
        None,
        "plain store through a made-up pointer",
    );
    let message = &r.failure.as_ref().expect("a failure").message;
    assert!(message.contains("names only in atomic"), "{message}");
    // Without race tracking the store is an ordinary (if undefined) write.
    opts.machine.races = RacePolicy::Allow;
    assert_eq!(check_with(src, "-O0", &[], &opts).verdict, Verdict::Pass);
}

#[test]
fn races_found_from_rebuilt_states_name_their_accesses() {
    // The breadth-first search (two or three workers) holds its states by id and
    // rebuilds them, which loses where each recorded access happened and the objects'
    // own numbers; its reports must still be those of the original states: the same
    // as the depth-first search's (one worker, whole states), with source lines.
    let src = r#"
#include <pthread.h>
#include <stdlib.h>
struct node { int value; struct node *next; };
struct node *head;
int counter;
static void *writer(void *a) {
    (void)a;
    struct node *n = malloc(sizeof *n);
    n->value = 1; /* value write */
    n->next = 0;
    __atomic_store_n(&head, n, __ATOMIC_RELAXED);
    counter++; /* writer counter */
    return 0;
}
static void *reader(void *a) {
    (void)a;
    struct node *n = __atomic_load_n(&head, __ATOMIC_ACQUIRE);
    int v = n ? n->value : 0; /* value read */
    counter += v; /* reader counter */
    return 0;
}
int main(void) {
    pthread_t t[2];
    pthread_create(&t[0], 0, writer, 0);
    pthread_create(&t[1], 0, reader, 0);
    pthread_join(t[0], 0);
    pthread_join(t[1], 0);
    return 0;
}
"#;
    let line = |marker: &str| {
        src.lines()
            .position(|l| l.contains(marker))
            .map(|i| i as u32 + 1)
            .expect("marker")
    };
    let bc = compile(src, "-O0", &[]);
    let reports = |jobs: usize| {
        let mut opts = options();
        opts.machine.races = RacePolicy::Warn;
        opts.jobs = jobs;
        let r = check_bc(&bc, &opts);
        assert_eq!(r.verdict, Verdict::Pass, "{jobs} workers: {:?}", r.failure);
        r.races
    };
    let one = reports(1);
    let value = one
        .iter()
        .find(|r| r.location.starts_with("heap#"))
        .unwrap_or_else(|| panic!("no race on the node's value: {one:?}"));
    let lines = [value.first.line, value.second.line];
    assert!(
        lines.contains(&line("value write")) && lines.contains(&line("value read")),
        "{}",
        value.message()
    );
    let counter = one
        .iter()
        .find(|r| r.location == "counter")
        .unwrap_or_else(|| panic!("no race on counter: {one:?}"));
    let lines = [counter.first.line, counter.second.line];
    assert!(
        lines.contains(&line("writer counter")) || lines.contains(&line("reader counter")),
        "{}",
        counter.message()
    );
    assert!(one.iter().all(|r| r.first.line != 0 && r.second.line != 0));
    for jobs in [2, 3] {
        assert_eq!(reports(jobs), one, "{jobs} workers against one");
    }
}

/// The race-free Treiber stack, `bench/programs/treiber3_c11.c`, with two threads:
/// each thread pushes a fresh node and pops one.
fn treiber() -> std::path::PathBuf {
    let src = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../bench/programs/treiber3_c11.c"
    );
    let src = std::fs::read_to_string(src).unwrap_or_else(|e| panic!("{src}: {e}"));
    compile(&src, "-O0", &["-DTHREADS=2"])
}

/// Verdict, states and races of `bc` with race tracking, with or without leaving out
/// the heap reads no unaware thread can still write (`race_read_futures`).
fn with_read_futures(bc: &std::path::Path, on: bool, jobs: usize) -> (Verdict, u64, Vec<String>) {
    let mut opts = options();
    opts.machine.races = RacePolicy::Warn;
    opts.machine.race_read_futures = on;
    opts.jobs = jobs;
    let r = check_bc(bc, &opts);
    let races = r.races.iter().map(|r| r.location.clone()).collect();
    (r.verdict, r.stats.states, races)
}

#[test]
fn heap_reads_no_unaware_thread_can_write_split_no_states() {
    // Once a thread has returned from `push`, it writes no node again, and main only
    // joins: the pops' reads of a node's fields then decide nothing.
    let bc = treiber();
    let (v, kept, races) = with_read_futures(&bc, false, 1);
    assert_eq!((v, races.len()), (Verdict::Pass, 0));
    let (v, left_out, races) = with_read_futures(&bc, true, 1);
    assert_eq!((v, races.len()), (Verdict::Pass, 0));
    assert!(left_out < kept, "{left_out} states against {kept}");
    // The same states whatever the search (a state rebuilt from the store recomputes
    // which threads may write on its next transition).
    for jobs in [2, 3] {
        assert_eq!(
            with_read_futures(&bc, true, jobs).1,
            left_out,
            "{jobs} workers"
        );
    }
}

#[test]
fn a_heap_read_stays_while_an_unaware_thread_may_write_it() {
    // The reader reads the node under the lock; the writer takes the lock either
    // before (it does not know the read) or after (it does), then writes the node
    // through a pointer loaded from `shared` once the reader's relaxed flag is up: a
    // race exactly when it took the lock first. Both orders reach the same memory and
    // positions, so a rule that forgot the read there would merge them and, searching
    // the ordered one first, miss the race. The node is a heap block (written through
    // a loaded pointer) or a global written by name, whose writer the rule must not
    // take for one that writes no memory it reads (a global is not a heap block).
    let cases = [
        ("reader", "writer", "malloc(sizeof *shared)", "heap#"),
        ("writer", "reader", "malloc(sizeof *shared)", "heap#"),
        ("reader", "writer", "&global", "global"),
        ("writer", "reader", "&global", "global"),
    ];
    for (first, second, node, location) in cases {
        let write = if node == "&global" {
            "global.value = 2;"
        } else {
            "shared->value = 2;"
        };
        let src = format!(
            r#"
#include <pthread.h>
#include <stdlib.h>
struct node {{ int value; }};
struct node global;
struct node *shared;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int flag;
int seen;
static void *reader(void *a) {{
    (void)a;
    pthread_mutex_lock(&m);
    seen = shared->value;
    pthread_mutex_unlock(&m);
    __atomic_store_n(&flag, 1, __ATOMIC_RELAXED);
    return 0;
}}
static void *writer(void *a) {{
    (void)a;
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    while (!__atomic_load_n(&flag, __ATOMIC_RELAXED))
        ;
    {write}
    return 0;
}}
int main(void) {{
    shared = {node};
    shared->value = 1;
    pthread_t t[2];
    pthread_create(&t[0], 0, {first}, 0);
    pthread_create(&t[1], 0, {second}, 0);
    pthread_join(t[0], 0);
    pthread_join(t[1], 0);
    return 0;
}}
"#
        );
        let bc = compile(&src, "-O0", &[]);
        let (_, _, off) = with_read_futures(&bc, false, 1);
        assert!(
            off.iter().any(|l| l.starts_with(location)),
            "{first} first, {node}, without the rule: {off:?}"
        );
        for jobs in [1, 2] {
            let (_, _, on) = with_read_futures(&bc, true, jobs);
            assert_eq!(on, off, "{first} first, {node}, {jobs} workers");
        }
    }
}

/// A search that answers the race screen, on `jobs` workers: its verdict, its answer,
/// and how often it told `CheckOptions::on_screen_conflict`.
fn screen_hook_calls(src: &str, jobs: usize) -> (Verdict, Option<RaceScreen>, usize) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let told = Arc::new(AtomicUsize::new(0));
    let mut opts = options();
    opts.jobs = jobs;
    opts.machine.races = RacePolicy::Allow;
    opts.machine.race_screen = true;
    opts.machine.answer_race_screen = true;
    let counted = told.clone();
    opts.on_screen_conflict = Some(Arc::new(move || {
        counted.fetch_add(1, Ordering::Relaxed);
    }));
    let r = check_with(src, "-O1", &[], &opts);
    (r.verdict, r.race_screen, told.load(Ordering::Relaxed))
}

/// The caller of a search that answers the race screen may start its race search as
/// soon as it is told the answer will not be no-conflict: told exactly once when a pair
/// of conflicting next accesses shows (on any number of workers) or the screen does not
/// apply, never when the answer is no-conflict.
#[test]
fn the_screen_hook_is_told_once_when_the_answer_is_not_no_conflict() {
    let atomic_only = counter("", "");
    let racy = counter("", "int seen = *(volatile int *)&counter; (void)seen;");
    let relaxed = atomic_only.replace("__ATOMIC_SEQ_CST", "__ATOMIC_RELAXED");
    for jobs in [1, 2] {
        assert_eq!(
            screen_hook_calls(&atomic_only, jobs),
            (Verdict::Pass, Some(RaceScreen::NoConflict), 0),
            "{jobs} workers"
        );
        assert_eq!(
            screen_hook_calls(&racy, jobs),
            (Verdict::Pass, Some(RaceScreen::Conflict), 1),
            "{jobs} workers"
        );
        let (verdict, answer, told) = screen_hook_calls(&relaxed, jobs);
        assert_eq!((verdict, told), (Verdict::Pass, 1), "{jobs} workers");
        assert!(
            matches!(answer, Some(RaceScreen::NotApplicable(_))),
            "{jobs} workers: {answer:?}"
        );
    }
}
