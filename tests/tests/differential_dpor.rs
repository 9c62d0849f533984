//! Dynamic partial-order reduction (`--experimental-dpor`, `explore/dpor.rs`) against
//! the full search, on one worker: a sample of the litmus tests, generated TSO
//! programs, generated race programs, the verdict corpus and the hang corpus, each
//! under SC and TSO, and the programs below whose stored states are reached again with
//! a different path. The exit status, verdict, error kind, races found and set of final
//! outcomes must be identical, and a failing run's counterexample (searched again
//! breadth-first without the reduction) the same, against the full search without
//! thread symmetry and the race screen, which the reduction turns off. `TSO_POR_ALL=1` checks every litmus and corpus program, `TSO_SOAK=N` N
//! generated programs.

use std::path::Path;
use tso_suite::check::Model;
use tso_suite::reduction_cases::{
    corpus_cases, field, generated_cases, litmus_cases, race_cases, Case,
};

const CI_GENERATED: u64 = 24;
const CI_LITMUS_EVERY: usize = 3;
const CI_CORPUS_EVERY: usize = 8;

fn compare(case: &Case) -> Vec<String> {
    let name = case.name();
    // The reduction turns thread symmetry and the race screen off (the screen makes
    // some library calls visible, which changes where transitions end): so does the
    // full search here, so that a failing run's shortest counterexample is the same
    // one (their own suites compare them with the default).
    let full = case.run(&["--no-symmetry", "--no-race-screen"], 1);
    if full.json.is_none() {
        return vec![format!("{name}: the full search gave no JSON: {full}")];
    }
    let reduced = case.run(&["--experimental-dpor"], 1);
    let mut differs = Vec::new();
    if reduced.exit != full.exit {
        differs.push("exit");
    }
    for key in ["verdict", "error", "outcomes", "races"] {
        if field(&reduced, key) != field(&full, key) {
            differs.push(key);
        }
    }
    if full.verdict() == Some("fail") && field(&reduced, "trace") != field(&full, "trace") {
        differs.push("trace");
    }
    if differs.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "{name}: {} differ\n  with:    {reduced}\n  without: {full}",
        differs.join(", ")
    )]
}

/// Programs whose stored states are reached again by paths that differ in which
/// steps race with what follows: the summary replay (`dpor`, "Stored states") is what
/// finds their failing or distinct outcomes.
fn revisit_cases(dir: &Path) -> Vec<Case> {
    REVISIT_PROGRAMS
        .iter()
        .map(|(name, src)| {
            let path = dir.join(format!("{name}.c"));
            std::fs::write(&path, src).expect("write the program");
            Case {
                path,
                model: Model::Sc,
                tool_args: Vec::new(),
                clang_args: Vec::new(),
                outcomes: true,
            }
        })
        .collect()
}

/// Three threads: `a` and `b` each write their own flag and then read the other's
/// shared counter; `c` writes `x` only after a step whose order against `a`'s first
/// step makes the same state reachable by two paths. The final read of `x` by `a` sees
/// `c`'s write only in orders that leave a stored state and reach it again.
const REVISIT_PROGRAMS: &[(&str, &str)] = &[
    (
        "revisit_diamond",
        r#"
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
atomic_int x, y, z;
int r1, r2;
static void *a(void *p) { atomic_store(&y, 1); r1 = atomic_load(&x); return 0; }
static void *b(void *p) { atomic_store(&z, 1); atomic_store(&x, 1); return 0; }
static void *c(void *p) { r2 = atomic_load(&y) + 2 * atomic_load(&z); return 0; }
int main(void) {
  pthread_t t[3];
  pthread_create(&t[0], 0, a, 0);
  pthread_create(&t[1], 0, b, 0);
  pthread_create(&t[2], 0, c, 0);
  for (int i = 0; i < 3; i++) pthread_join(t[i], 0);
  printf("%d %d\n", r1, r2);
  return 0;
}
"#,
    ),
    (
        "revisit_counter",
        r#"
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
atomic_int n, seen;
static void *inc(void *p) { atomic_fetch_add(&n, 1); atomic_fetch_add(&n, 1); return 0; }
static void *dec(void *p) { atomic_fetch_sub(&n, 2); return 0; }
static void *obs(void *p) { int v = atomic_load(&n); atomic_store(&seen, v); return 0; }
int main(void) {
  pthread_t t[3];
  pthread_create(&t[0], 0, inc, 0);
  pthread_create(&t[1], 0, dec, 0);
  pthread_create(&t[2], 0, obs, 0);
  for (int i = 0; i < 3; i++) pthread_join(t[i], 0);
  printf("%d\n", atomic_load(&seen));
  return 0;
}
"#,
    ),
];

#[test]
fn litmus_tests_agree_with_and_without_dpor() {
    check_all(litmus_cases(CI_LITMUS_EVERY), "litmus");
}

#[test]
fn corpus_programs_agree_with_and_without_dpor() {
    check_all(corpus_cases("programs", CI_CORPUS_EVERY), "corpus");
}

#[test]
fn hang_verdicts_agree_with_and_without_dpor() {
    check_all(corpus_cases("programs/hangs", 1), "hang");
}

#[test]
fn generated_tso_programs_agree_with_and_without_dpor() {
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "differential_dpor");
    check_all(generated_cases(&dir, CI_GENERATED), "generated");
}

#[test]
fn generated_race_programs_find_the_same_races_with_and_without_dpor() {
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "differential_dpor_races");
    check_all(race_cases(&dir, CI_GENERATED), "race");
}

#[test]
fn states_reached_again_by_another_path_agree_with_and_without_dpor() {
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "differential_dpor_revisit");
    check_all(revisit_cases(&dir), "revisit");
}

fn check_all(cases: Vec<Case>, what: &str) {
    tso_suite::reduction_cases::check_all(cases, what, compare);
}
