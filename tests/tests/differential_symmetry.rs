//! Thread symmetry changes how many states are stored, never an answer: every litmus
//! test, a sample of the random TSO programs (`gen_tso`) and of the verdict corpus run
//! with thread symmetry (the default) and with `--no-symmetry` must give the same
//! verdict and error kind, the same set of final outcomes where outcomes are collected,
//! and no more states. A failure's counterexample is replayed from the initial state
//! (the path of representatives turned back into the program's own threads); its error
//! location, where the replayed failing thread stopped, must be the one the run
//! without symmetry reports.
//!
//! In CI: all litmus tests under TSO, the first 40 random programs, and every 4th
//! corpus program at -O1. `TSO_SOAK=N` runs N random programs and every corpus
//! program (`scripts/soak-symmetry.sh`); `TSO_SEED=S` shifts the seeds.

use tso_suite::check::{answer_difference, assert_no_problems, differential_runs, CheckRun};

/// The problem with running `run` with and without symmetry, if any.
fn compare(name: &str, run: CheckRun) -> Option<String> {
    let with = run.clone().run();
    let without = run.tool_args(&["--no-symmetry"]).run();
    if let Some(problem) = answer_difference(
        name,
        ("with symmetry   ", &with),
        ("without symmetry", &without),
    ) {
        return Some(problem);
    }
    // A run stopped by a limit may stop anywhere; a finished one stores at most as many.
    if with.verdict() == Some("pass") && with.states() > without.states() {
        return Some(format!(
            "{name}: {:?} states with symmetry, {:?} without",
            with.states(),
            without.states()
        ));
    }
    None
}

#[test]
fn symmetry_changes_no_answer() {
    let every = if tso_suite::soaking() { 1 } else { 4 };
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "differential_symmetry");
    let runs: Vec<(String, CheckRun)> = differential_runs(&dir, 40, every)
        .into_iter()
        .map(|(_, name, run)| (name, run))
        .collect();
    assert_no_problems(&runs, |name, run| compare(name, run.clone()));
}
