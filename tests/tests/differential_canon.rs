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

use std::collections::BTreeSet;
use tso_suite::check::{CheckResult, CheckRun, Model};
use tso_suite::{corpus, gen_tso, litmus, parallel};

type Answer = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<BTreeSet<String>>,
);

/// A run as compared: verdict, error kind and location, outcomes.
fn answer(r: &CheckResult) -> Answer {
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

/// The problem with running `run` checked and without incremental canonicalisation.
fn compare(name: &str, run: &CheckRun) -> Option<String> {
    let checked = run.clone().tool_args(&["--check-incremental-canon"]).run();
    let off = run.clone().tool_args(&["--no-incremental-canon"]).run();
    if checked.json.is_none() || off.json.is_none() {
        return Some(format!("{name}: no JSON:\n  {checked}\n  {off}"));
    }
    if answer(&checked) != answer(&off) {
        return Some(format!(
            "{name}: answers differ\n  checked: {:?}\n  off:     {:?}",
            answer(&checked),
            answer(&off)
        ));
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

fn soak() -> Option<u64> {
    std::env::var("TSO_SOAK").ok()?.parse().ok()
}

#[test]
fn incremental_canonicalisation_changes_no_state() {
    let mut runs: Vec<(String, CheckRun)> = Vec::new();
    let litmus =
        litmus::read_dir(&tso_suite::suite_dir().join("litmus")).unwrap_or_else(|e| panic!("{e}"));
    assert!(litmus.len() >= 20, "the litmus corpus shrank");
    for t in &litmus {
        let run = CheckRun::new(&t.source, Model::Tso).outcomes();
        runs.push((format!("litmus {}", t.name), run.clone().jobs(1)));
        runs.push((
            format!("litmus {} --no-symmetry", t.name),
            run.clone().jobs(1).tool_args(&["--no-symmetry"]),
        ));
        runs.push((
            format!("litmus {} --races warn -j2", t.name),
            run.jobs(2).tool_args(&["--races", "warn"]),
        ));
    }
    let dir = tso_suite::binary::scratch("differential-canon");
    let seed0 = tso_suite::env_number("TSO_SEED", 0);
    let programs = soak().unwrap_or(30);
    for seed in seed0..seed0 + programs {
        let p = gen_tso::generate(seed);
        let path = dir.join(format!("seed_{seed}.c"));
        std::fs::write(&path, p.to_c()).expect("write program");
        let run = CheckRun::new(&path, Model::Tso).sb_bound(2).outcomes();
        runs.push((format!("random seed {seed}"), run.clone().jobs(1)));
        runs.push((
            format!("random seed {seed} --no-symmetry -j2"),
            run.jobs(2).tool_args(&["--no-symmetry"]),
        ));
    }
    let files = corpus::sources_under(&tso_suite::suite_dir().join("programs"));
    let every = if soak().is_some() { 1 } else { 3 };
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
            let run = CheckRun::new(file, model)
                .tool_args(&program.check_args)
                .clang_args(&clang);
            let name = format!("{} {}", file.display(), model.as_str());
            if i % (2 * every) == 0 {
                runs.push((format!("{name} -j2"), run.clone().jobs(2)));
            }
            runs.push((name, run.jobs(1)));
        }
    }
    let problems: Vec<String> = parallel::map(&runs, |(name, run)| compare(name, run))
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
