//! Awaits (`tso-engine/src/ir/awaits.rs`: a failing iteration of a loop that only
//! reads gives no successor) against the search without them (`--no-awaits`).
//!
//! - `awaits_change_no_answer`: every litmus test under TSO, random TSO programs
//!   (`gen_tso`), every 4th corpus program under SC and TSO, and generated spin shapes
//!   under SC and TSO: the same verdict, error kind and location, and outcomes; a
//!   failing run's counterexample the same (replayed to its error); a passing run
//!   stores no more states. A program that can hang fails `non-terminating` with
//!   awaits and passes without them (the spinner just spins): the spin shapes are
//!   compared with `--allow-nontermination` on the awaits side, where a hang ends its
//!   path as it does without awaits.
//! - One test per soundness condition, each failing if its rule is dropped.
//! - Hang tests: programs that can hang fail, a spin another thread releases passes.
//!
//! `TSO_SOAK=N` runs N random programs and spin shapes, and every corpus program.

use std::path::{Path, PathBuf};
use tso_suite::check::{
    answer_difference, assert_no_problems, differential_runs, CheckResult, CheckRun, Model,
};
use tso_suite::prng::Rng;

/// The problem with running `run` with awaits (`on_args` added) and without, if any.
/// Where awaits find a hang the run without them cannot see (it fails otherwise or
/// passes), both runs are compared again with `--allow-nontermination`: every other
/// answer must be the same.
fn compare(name: &str, run: &CheckRun, on_args: &[&str]) -> Option<String> {
    let with = run.clone().tool_args(on_args).run();
    let without = run
        .clone()
        .tool_args(on_args)
        .tool_args(&["--no-awaits"])
        .run();
    let hang = |r: &CheckResult| r.error_kind() == Some("non-terminating");
    if hang(&with) != hang(&without) {
        return Some(format!(
            "{name}: only one of the two finds a hang\n  {with}\n  {without}"
        ));
    }
    if hang(&with) {
        // Both hang, found by two rules (a waiter that cannot move; a cycle with no way
        // to the end), so their traces differ: compare the rest of the answer.
        let allow = run.clone().tool_args(&["--allow-nontermination"]);
        return compare_runs(name, &allow, &[]);
    }
    compare_results(name, &with, &without)
}

fn compare_runs(name: &str, run: &CheckRun, on_args: &[&str]) -> Option<String> {
    let with = run.clone().tool_args(on_args).run();
    let without = run.clone().tool_args(&["--no-awaits"]).run();
    compare_results(name, &with, &without)
}

fn compare_results(name: &str, with: &CheckResult, without: &CheckResult) -> Option<String> {
    if let Some(problem) = answer_difference(name, ("awaits   ", with), ("no awaits", without)) {
        return Some(problem);
    }
    let field = |r: &CheckResult, k: &str| r.json.as_ref().and_then(|j| j.get(k).cloned());
    if with.verdict() == Some("fail") && field(with, "trace") != field(without, "trace") {
        return Some(format!(
            "{name}: the counterexamples differ\n  {with}\n  {without}"
        ));
    }
    if with.verdict() == Some("pass") && with.states() > without.states() {
        return Some(format!(
            "{name}: {:?} states with awaits, {:?} without",
            with.states(),
            without.states()
        ));
    }
    None
}

#[test]
fn awaits_change_no_answer() {
    let every = if tso_suite::soaking() { 1 } else { 4 };
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "differential_awaits");
    let mut runs: Vec<(String, CheckRun, bool)> = differential_runs(&dir, 24, every)
        .into_iter()
        .map(|(_, name, run)| (name, run, false))
        .collect();
    for seed in tso_suite::soak_seeds(40) {
        let path = dir.join(format!("spin_{seed}.c"));
        std::fs::write(&path, spin_program(seed)).expect("write program");
        for model in [Model::Sc, Model::Tso] {
            let run = CheckRun::new(&path, model).outcomes();
            runs.push((format!("spin shape {seed} {}", model.as_str()), run, true));
        }
    }
    let named: Vec<(String, CheckRun)> = runs
        .iter()
        .map(|(name, run, _)| (name.clone(), run.clone()))
        .collect();
    let shapes: std::collections::BTreeSet<String> =
        runs.iter().filter(|r| r.2).map(|r| r.0.clone()).collect();
    assert_no_problems(&named, |name, run| {
        let on: &[&str] = if shapes.contains(name) {
            &["--allow-nontermination"]
        } else {
            &[]
        };
        compare(name, run, on)
    });
}

/// A small program of spin shapes: two or three threads and `main`, each a few steps
/// over three atomic or plain variables: stores, and spins until a variable holds a
/// value, in the shapes users write (a `while` with an empty body or a pause, a
/// `do`-`while`, a negated flag, a loop that also reads a second variable, a loop
/// through a reading function, a loop that writes). Some can hang; `main` prints what
/// it reads after joining.
fn spin_program(seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let threads = 2 + rng.below(2) as usize;
    let vars = ["a", "b", "c"];
    let mut out = String::from(
        "#include <pthread.h>\n#include <stdatomic.h>\n#include <stdio.h>\n\
         static atomic_int a, b, c;\nstatic int plain;\n\
         static int read_a(void) { return atomic_load(&a); }\n",
    );
    for t in 0..threads {
        out.push_str(&format!(
            "static void *t{t}(void *arg) {{\n    (void)arg;\n"
        ));
        for _ in 0..1 + rng.below(3) {
            let v = vars[rng.below(3) as usize];
            let k = 1 + rng.below(2);
            let w = vars[rng.below(3) as usize];
            let line = match rng.below(9) {
                0 | 1 => format!("atomic_store(&{v}, {k});"),
                2 => format!("while (atomic_load(&{v}) != {k}) {{}}"),
                3 => format!("while (atomic_load_explicit(&{v}, memory_order_acquire) < {k}) __builtin_ia32_pause();"),
                4 => format!("while (!atomic_load(&{v})) {{}}"),
                5 => format!("{{ int r; do {{ r = atomic_load(&{v}); }} while (r != {k}); }}"),
                6 => format!("while (atomic_load(&{v}) != {k} && atomic_load(&{w}) != {k}) {{}}"),
                7 => format!("while (read_a() != {k}) {{}}"),
                _ => format!("while (atomic_load(&{v}) != {k}) {{ plain = {k}; }}"),
            };
            out.push_str("    ");
            out.push_str(&line);
            out.push('\n');
        }
        out.push_str("    return 0;\n}\n");
    }
    out.push_str(&format!("int main(void) {{\n    pthread_t t[{threads}];\n"));
    for t in 0..threads {
        out.push_str(&format!("    pthread_create(&t[{t}], 0, t{t}, 0);\n"));
    }
    for t in 0..threads {
        out.push_str(&format!("    pthread_join(t[{t}], 0);\n"));
    }
    out.push_str(
        "    printf(\"%d %d %d %d\\n\", atomic_load(&a), atomic_load(&b), atomic_load(&c), plain);\n    return 0;\n}\n",
    );
    out
}

/// One program of the tests below, written to the suite's scratch directory.
fn program(name: &str, src: &str) -> PathBuf {
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "awaits_programs");
    let path = dir.join(format!("{name}.c"));
    std::fs::write(&path, src).expect("write program");
    path
}

fn check(path: &Path, model: Model, args: &[&str]) -> CheckResult {
    CheckRun::new(path, model).tool_args(args).outcomes().run()
}

/// The verdict and error kind of `path` under SC and TSO, with awaits.
fn assert_both(path: &Path, verdict: &str, kind: Option<&str>) {
    assert_both_with(path, &[], &[], verdict, kind);
}

/// The verdict and error kind of `path` under SC and TSO, with awaits, compiled with
/// `clang` flags and checked with `tool` flags.
fn assert_both_with(path: &Path, clang: &[&str], tool: &[&str], verdict: &str, kind: Option<&str>) {
    for model in [Model::Sc, Model::Tso] {
        let r = CheckRun::new(path, model)
            .clang_args(clang)
            .tool_args(tool)
            .outcomes()
            .run();
        assert_eq!(
            (r.verdict(), r.error_kind()),
            (Some(verdict), kind),
            "{} under {}: {r}",
            path.display(),
            model.as_str()
        );
    }
}

/// Soundness: a loop that writes shared memory on its failing path is no await. If it
/// were, the waiter's write would be dropped, `main` would wait for it forever, and
/// the check would fail as non-terminating.
#[test]
fn a_loop_that_writes_is_no_await() {
    let p = program(
        "writes",
        r#"#include <pthread.h>
#include <stdatomic.h>
static atomic_int flag, seen;
static void *waiter(void *a) {
    (void)a;
    while (!atomic_load(&flag))
        atomic_store(&seen, 1);
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, waiter, 0);
    while (!atomic_load(&seen)) {}
    atomic_store(&flag, 1);
    pthread_join(t, 0);
    return 0;
}
"#,
    );
    assert_both(&p, "pass", None);
}

/// Soundness: a store in the loop, even to memory no other thread can reach, makes it
/// no await (`ir/awaits.rs` `reads_only`). Here the waiter counts its turns in a heap
/// block; had the turns been dropped, the count could never reach 2. At -O0, where the
/// count lives in memory, not in a register.
#[test]
fn a_loop_that_counts_in_memory_is_no_await() {
    let p = program(
        "count_in_memory",
        r#"#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
static atomic_int flag;
static void *waiter(void *a) {
    (void)a;
    int *count = malloc(sizeof *count);
    *count = 0;
    while (!atomic_load(&flag))
        (*count)++;
    assert(*count < 2);
    free(count);
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, waiter, 0);
    atomic_store(&flag, 1);
    pthread_join(t, 0);
    return 0;
}
"#,
    );
    assert_both_with(&p, &["-O0"], &[], "fail", Some("assertion"));
}

/// Soundness: a value carried round the loop that the iteration changes (a counter in
/// a register at -O1) makes the turn an ordinary step (`failing_iteration` compares the
/// live registers); had it been dropped, the count could never reach 2.
#[test]
fn a_loop_that_carries_a_changed_value_is_no_await() {
    let p = program(
        "count_in_register",
        r#"#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
static atomic_int flag;
static void *waiter(void *a) {
    (void)a;
    int count = 0;
    while (!atomic_load(&flag))
        count++;
    assert(count < 2);
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, waiter, 0);
    atomic_store(&flag, 1);
    pthread_join(t, 0);
    return 0;
}
"#,
    );
    assert_both_with(&p, &["-O1"], &[], "fail", Some("assertion"));
}

/// Soundness: the iteration of an await runs whenever its thread is expanded, so a
/// memory error in it (here a read of memory `main` freed) is found.
#[test]
fn a_failing_iteration_still_finds_a_use_after_free() {
    let p = program(
        "use_after_free",
        r#"#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
static atomic_int *_Atomic box;
static void *waiter(void *a) {
    (void)a;
    atomic_int *p = atomic_load(&box);
    while (!atomic_load(p)) {}
    return 0;
}
int main(void) {
    atomic_int *p = calloc(1, sizeof *p);
    atomic_store(&box, p);
    pthread_t t;
    pthread_create(&t, 0, waiter, 0);
    free(p);
    pthread_join(t, 0);
    return 0;
}
"#,
    );
    assert_both(&p, "fail", Some("use-after-free"));
}

/// Soundness: a loop that reads twice is not made atomic: its reads may see different
/// writes (`1 2`: x before the writer's second store, y after it).
#[test]
fn a_multi_read_loop_sees_values_from_different_writes() {
    let p = program(
        "multi_read",
        r#"#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
static atomic_int x, y;
static void *writer(void *a) {
    (void)a;
    atomic_store(&x, 1);
    atomic_store(&y, 1);
    atomic_store(&x, 2);
    atomic_store(&y, 2);
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, writer, 0);
    int a, b;
    do {
        a = atomic_load(&x);
        b = atomic_load(&y);
    } while (a == 0 || b == 0);
    printf("%d %d\n", a, b);
    pthread_join(t, 0);
    return 0;
}
"#,
    );
    for model in [Model::Sc, Model::Tso] {
        let r = check(&p, model, &[]);
        let outcomes = r.outcomes().unwrap_or_default();
        let expected: std::collections::BTreeSet<String> = ["1 1", "1 2", "2 1", "2 2"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(outcomes, expected, "under {}: {r}", model.as_str());
    }
}

/// Soundness under TSO: a spin reads its own buffered store first. `x = 1` may still
/// sit in main's buffer when it spins; judged against memory, the spin would wait
/// for a write that never comes.
#[test]
fn a_tso_spin_sees_its_own_buffered_store() {
    let p = program(
        "own_buffer",
        r#"#include <pthread.h>
static int x, y;
static void *other(void *a) {
    (void)a;
    y = 1;
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, other, 0);
    x = 1;
    while (*(volatile int *)&x != 1) {}
    pthread_join(t, 0);
    return 0;
}
"#,
    );
    assert_both(&p, "pass", None);
}

/// A waiter spins on a flag no thread sets and `main` joins it: the program can never
/// end. With awaits it fails `non-terminating`, naming the loop and what it reads;
/// with `--allow-nontermination` the hang is not an error.
#[test]
fn a_spin_nobody_releases_hangs() {
    let p = program(
        "hang_flag",
        r#"#include <pthread.h>
#include <stdatomic.h>
static atomic_int flag;
static void *waiter(void *a) {
    (void)a;
    while (!atomic_load(&flag)) {}
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, waiter, 0);
    pthread_join(t, 0);
    return 0;
}
"#,
    );
    assert_both(&p, "fail", Some("non-terminating"));
    let r = check(&p, Model::Tso, &[]);
    let message = r.error_message().unwrap_or_default();
    assert!(
        message.contains("hang_flag.c:6") && message.contains("flag"),
        "the message names the loop and the flag: {message}"
    );
    assert_both_with(&p, &[], &["--allow-nontermination"], "pass", None);
}

/// A lost handoff: the consumer waits for `ready` when it won `claimed`, and then the
/// producer never sets it. Some interleavings never end.
#[test]
fn a_lost_handoff_hangs() {
    let p = program(
        "hang_handoff",
        r#"#include <pthread.h>
#include <stdatomic.h>
static atomic_int claimed, ready;
static void *producer(void *a) {
    (void)a;
    int z = 0;
    if (atomic_compare_exchange_strong(&claimed, &z, 1))
        atomic_store(&ready, 1);
    return 0;
}
static void *consumer(void *a) {
    (void)a;
    int z = 0;
    if (atomic_compare_exchange_strong(&claimed, &z, 2))
        while (!atomic_load(&ready)) {}
    return 0;
}
int main(void) {
    pthread_t p, c;
    pthread_create(&p, 0, producer, 0);
    pthread_create(&c, 0, consumer, 0);
    pthread_join(p, 0);
    pthread_join(c, 0);
    return 0;
}
"#,
    );
    assert_both(&p, "fail", Some("non-terminating"));
}

/// A spin another thread releases is no hang, whatever the interleaving.
#[test]
fn a_released_spin_passes() {
    let p = program(
        "released",
        r#"#include <pthread.h>
#include <stdatomic.h>
static atomic_int flag;
static void *waiter(void *a) {
    (void)a;
    while (!atomic_load(&flag)) {}
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, waiter, 0);
    atomic_store(&flag, 1);
    pthread_join(t, 0);
    return 0;
}
"#,
    );
    assert_both(&p, "pass", None);
}
