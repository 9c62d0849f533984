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

use std::collections::BTreeSet;
use tso_suite::check::{CheckResult, CheckRun, Model};
use tso_suite::{corpus, gen_tso, litmus, parallel};

/// A run as compared: verdict, error kind and location, outcomes, states.
fn answer(
    r: &CheckResult,
) -> (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<BTreeSet<String>>,
) {
    let location = r.json.as_ref().and_then(|j| {
        j.get("error")?
            .get("location")?
            .as_str()
            .map(str::to_string)
    });
    (
        r.verdict().map(str::to_string),
        r.error_kind().map(str::to_string),
        location,
        r.outcomes(),
    )
}

/// The problem with running `run` with and without symmetry, if any.
fn compare(name: &str, run: CheckRun) -> Option<String> {
    let with = run.clone().run();
    let without = run.tool_args(&["--no-symmetry"]).run();
    if with.json.is_none() || without.json.is_none() {
        return Some(format!("{name}: no JSON:\n  {with}\n  {without}"));
    }
    if answer(&with) != answer(&without) {
        return Some(format!(
            "{name}: answers differ\n  with symmetry:    {:?}\n  without symmetry: {:?}",
            answer(&with),
            answer(&without)
        ));
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
    let mut runs: Vec<(String, CheckRun)> = Vec::new();
    let litmus =
        litmus::read_dir(&tso_suite::suite_dir().join("litmus")).unwrap_or_else(|e| panic!("{e}"));
    assert!(litmus.len() >= 20, "the litmus corpus shrank");
    for t in &litmus {
        runs.push((
            format!("litmus {}", t.name),
            CheckRun::new(&t.source, Model::Tso).outcomes(),
        ));
    }
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "differential_symmetry");
    for seed in tso_suite::soak_seeds(40) {
        let p = gen_tso::generate(seed);
        let path = dir.join(format!("seed_{seed}.c"));
        std::fs::write(&path, p.to_c()).expect("write program");
        runs.push((
            format!("random seed {seed}"),
            CheckRun::new(&path, Model::Tso).sb_bound(2).outcomes(),
        ));
    }
    let files = corpus::sources_under(&tso_suite::suite_dir().join("programs"));
    let every = if tso_suite::soaking() { 1 } else { 4 };
    for (i, file) in files.iter().enumerate() {
        if i % every != 0 {
            continue;
        }
        let program = corpus::read_program(file).unwrap_or_else(|e| panic!("{e}"));
        for model in [Model::Sc, Model::Tso] {
            let clang: Vec<String> = program
                .clang_args
                .clone()
                .unwrap_or_else(|| vec!["-O1".to_string()]);
            runs.push((
                format!("{} {}", file.display(), model.as_str()),
                CheckRun::new(file, model)
                    .tool_args(&program.check_args)
                    .clang_args(&clang),
            ));
        }
    }
    let problems: Vec<String> = parallel::map(&runs, |(name, run)| compare(name, run.clone()))
        .into_iter()
        .flatten()
        .collect();
    assert!(
        problems.is_empty(),
        "{} of {} runs differ:\n{}",
        problems.len(),
        runs.len(),
        problems.join("\n")
    );
}
