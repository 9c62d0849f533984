//! Differential testing of the TSO encodings at the C level: for random
//! small programs (tests/src/gen_tso.rs) with mixed-width overlapping accesses,
//! - the delayed-flush encoding (`--memory-model tso`) reaches exactly the outcomes of
//!   the reference machine (`--memory-model tso --reference-machine`) at bounds 1, 2
//!   and 0 (unbounded);
//! - SC outcomes are a subset of TSO outcomes, and bound 1 ⊆ bound 2 ⊆ unbounded;
//! - both equal the outcomes of an operational x86-TSO machine written in the test
//!   itself (`gen_tso::machine_outcomes`), and the SC run equals its SC enumeration.
//!
//! In CI the test runs as many programs as fit in `TSO_DIFF_BUDGET_SECS` (default 170)
//! of wall time, in seed order, at most 5000. `TSO_SOAK=N` runs exactly N programs with
//! no time budget; `TSO_SEED=S` shifts the seeds.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tso_suite::check::{CheckRun, Model};
use tso_suite::gen_tso::{self, TsoProgram};
use tso_suite::parallel;

/// Most programs without `TSO_SOAK`; the time budget normally ends the run first.
const CI_PROGRAMS: u64 = 5000;
/// Programs that must at least run in CI, so a slow machine cannot silently test nothing.
const CI_MINIMUM: usize = 100;
const BOUNDS: [u32; 3] = [1, 2, 0];

fn show(set: &BTreeSet<String>) -> String {
    format!("{:?}", set.iter().collect::<Vec<_>>())
}

/// The outcome set of a run that passed; otherwise the run is recorded as a problem.
fn settle(
    r: tso_suite::check::CheckResult,
    name: &str,
    problems: &mut Vec<String>,
) -> BTreeSet<String> {
    match r.outcomes() {
        Some(set) if r.passed() => set,
        _ => {
            problems.push(format!("{name}: {r}"));
            BTreeSet::new()
        }
    }
}

/// Every problem with one program, empty when it is right. `TSO_SUITE_VERBOSE` prints
/// each run's wall time and state count.
fn check_program(program: &TsoProgram, dir: &std::path::Path) -> Vec<String> {
    let path = dir.join(format!("seed_{}.c", program.seed));
    if let Err(e) = std::fs::write(&path, program.to_c()) {
        return vec![format!("cannot write {}: {e}", path.display())];
    }
    let mut problems = Vec::new();
    let verbose = std::env::var_os("TSO_SUITE_VERBOSE").is_some();
    let mut outcomes = |run: CheckRun, name: &str| match run.run() {
        r if verbose => {
            eprintln!(
                "seed {} {name}: {:?}, states {:?}",
                program.seed,
                r.wall,
                r.states()
            );
            settle(r, name, &mut problems)
        }
        r => settle(r, name, &mut problems),
    };
    let sc = outcomes(CheckRun::new(&path, Model::Sc).outcomes(), "sc");
    let mut tso = Vec::new();
    let mut reference = Vec::new();
    for b in BOUNDS {
        tso.push(outcomes(
            CheckRun::new(&path, Model::Tso).sb_bound(b).outcomes(),
            &format!("tso bound {b}"),
        ));
        reference.push(outcomes(
            CheckRun::new(&path, Model::Tso)
                .sb_bound(b)
                .reference_machine()
                .outcomes(),
            &format!("reference bound {b}"),
        ));
    }
    if !problems.is_empty() {
        return problems;
    }
    let oracle_sc = gen_tso::machine_outcomes(program, Some(0));
    if sc != oracle_sc {
        problems.push(format!(
            "sc differs from the SC enumeration: engine {} oracle {}",
            show(&sc),
            show(&oracle_sc)
        ));
    }
    for (i, b) in BOUNDS.iter().enumerate() {
        if tso[i] != reference[i] {
            problems.push(format!(
                "bound {b}: delayed-flush only {}, reference-machine only {}",
                show(&tso[i].difference(&reference[i]).cloned().collect()),
                show(&reference[i].difference(&tso[i]).cloned().collect())
            ));
        }
        if !sc.is_subset(&tso[i]) {
            problems.push(format!(
                "bound {b}: SC outcomes missing under TSO: {}",
                show(&sc.difference(&tso[i]).cloned().collect())
            ));
        }
        let oracle =
            gen_tso::machine_outcomes(program, if *b == 0 { None } else { Some(*b as usize) });
        if tso[i] != oracle {
            problems.push(format!(
                "bound {b}: delayed-flush vs the test's x86-TSO machine: tool only {}, machine only {}",
                show(&tso[i].difference(&oracle).cloned().collect()),
                show(&oracle.difference(&tso[i]).cloned().collect())
            ));
        }
    }
    if !(tso[0].is_subset(&tso[1]) && tso[1].is_subset(&tso[2])) {
        problems.push("outcomes do not grow with the bound (1 ⊆ 2 ⊆ unbounded fails)".into());
    }
    problems
}

#[test]
fn delayed_flush_equals_reference_machine() {
    let soak = std::env::var("TSO_SOAK").is_ok();
    let count = tso_suite::env_number("TSO_SOAK", CI_PROGRAMS);
    let base = tso_suite::env_number("TSO_SEED", 0);
    let budget = Duration::from_secs(tso_suite::env_number("TSO_DIFF_BUDGET_SECS", 170));
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("differential_tso");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let seeds: Vec<u64> = (base..base + count).collect();
    let started = Instant::now();
    let deadline = (!soak).then(|| started + budget);
    let results = parallel::map_until(&seeds, deadline, |&seed| {
        let program = gen_tso::generate(seed);
        let problems = check_program(&program, &dir);
        (!problems.is_empty()).then(|| {
            format!(
                "seed {seed}:\n  {}\n{}",
                problems.join("\n  "),
                program.to_c()
            )
        })
    });
    let ran = results.iter().filter(|r| r.is_some()).count();
    let failures: Vec<String> = results.into_iter().flatten().flatten().collect();
    eprintln!(
        "differential_tso: {ran} programs (seeds from {base}), {} with problems, {:?}",
        failures.len(),
        started.elapsed()
    );
    // Long reports are cut: the first failures and the count are what a person needs.
    let shown: Vec<&str> = failures.iter().take(5).map(|s| s.as_str()).collect();
    assert!(
        failures.is_empty(),
        "{} of {ran} generated programs fail (first {} shown):\n\n{}",
        failures.len(),
        shown.len(),
        shown.join("\n\n")
    );
    assert!(
        soak || ran >= CI_MINIMUM,
        "only {ran} programs ran within {budget:?}; at least {CI_MINIMUM} must"
    );
}
