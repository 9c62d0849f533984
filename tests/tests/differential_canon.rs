//! Incremental canonicalisation (a successor numbered with its parent's numbering when
//! that numbering is provably its own, `tso-engine/src/store/canon.rs`) changes no
//! state: every run here is made twice, once with `--check-incremental-canon` (every
//! state canonicalised incrementally is canonicalised afresh too, and the run stops
//! with an internal error if the chunk ids, the object numbering or the thread order
//! differ) and once with `--no-incremental-canon`. Both must give the same verdict,
//! error kind and location, outcomes, and the same number of states.
//!
//! Runs: every litmus test under TSO (thread symmetry on, one worker; symmetry off;
//! races warned on two workers), random TSO programs (`gen_tso`) with and without
//! symmetry on one and two workers, and every 3rd corpus program under SC and TSO
//! (every 6th also on two workers). `TSO_SOAK=N` runs N random programs and every
//! corpus program; `TSO_SEED=S` shifts the seeds.

use tso_suite::check::{
    answer_difference, assert_no_problems, differential_runs, CheckRun, Origin,
};

/// The problem with running `run` checked and without incremental canonicalisation.
fn compare(name: &str, run: &CheckRun) -> Option<String> {
    let checked = run.clone().tool_args(&["--check-incremental-canon"]).run();
    let off = run.clone().tool_args(&["--no-incremental-canon"]).run();
    if let Some(problem) = answer_difference(name, ("checked", &checked), ("off    ", &off)) {
        return Some(problem);
    }
    // Two workers that stop at an error may have stored more or fewer states.
    let exact = run.jobs == Some(1) || checked.verdict() == Some("pass");
    if exact && checked.states() != off.states() {
        return Some(format!(
            "{name}: {:?} states incremental, {:?} without",
            checked.states(),
            off.states()
        ));
    }
    None
}

#[test]
fn incremental_canonicalisation_changes_no_state() {
    let every = if tso_suite::soaking() { 1 } else { 3 };
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "differential_canon");
    let mut runs: Vec<(String, CheckRun)> = Vec::new();
    for (origin, name, run) in differential_runs(&dir, 30, every) {
        let (variant, args): (&str, &[&str]) = match origin {
            Origin::Litmus => {
                runs.push((
                    format!("{name} --no-symmetry"),
                    run.clone().jobs(1).tool_args(&["--no-symmetry"]),
                ));
                ("--races warn", &["--races", "warn"])
            }
            Origin::Random => ("--no-symmetry", &["--no-symmetry"]),
            Origin::Corpus(i) if i % (2 * every) == 0 => ("", &[]),
            Origin::Corpus(_) => {
                runs.push((name, run.jobs(1)));
                continue;
            }
        };
        runs.push((
            format!("{name} {variant} -j2"),
            run.clone().jobs(2).tool_args(args),
        ));
        runs.push((name, run.jobs(1)));
    }
    assert_no_problems(&runs, compare);
}
