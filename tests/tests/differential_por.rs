//! Partial-order reduction (sleep sets) against the full search: a sample of the
//! litmus tests, generated TSO programs, generated race programs and the verdict
//! corpus, each under SC and TSO, with the reduction on one worker (depth-first) and
//! two (breadth-first) and without it, with thread symmetry (the default) and without.
//! The exit status, verdict, error kind, stored state count, races found and set of
//! final outcomes must be identical, and a failing run's counterexample (replayed to
//! its error to give the JSON `trace`) the same. Persistent sets
//! (`--experimental-persistent-sets`, which store fewer states) are compared too, under
//! SC and TSO without race data (`compare_persistent`). `TSO_POR_ALL=1` checks every litmus and
//! corpus program, `TSO_SOAK=N` N generated programs (`scripts/soak-por.sh`).

use serde_json::Value;
use tso_suite::check::{CheckResult, Model};
use tso_suite::reduction_cases::{
    corpus_cases, field, generated_cases, litmus_cases, race_cases, Case,
};
use tso_suite::{corpus, parallel};

/// Generated programs per CI run, and one in how many litmus and corpus programs (a
/// sample keeps the CI cost near a minute).
const CI_GENERATED: u64 = 24;
const CI_LITMUS_EVERY: usize = 3;
const CI_CORPUS_EVERY: usize = 8;

fn run(case: &Case, por: bool, symmetry: bool, jobs: usize) -> CheckResult {
    run_with(case, por, symmetry, jobs, &[])
}

fn run_with(case: &Case, por: bool, symmetry: bool, jobs: usize, extra: &[&str]) -> CheckResult {
    let mut args = extra.to_vec();
    if !symmetry {
        args.push("--no-symmetry");
    }
    if !por {
        args.push("--no-por");
    }
    case.run(&args, jobs)
}

/// Every difference between the reduced runs and the full one: with thread symmetry
/// (the default) on one and two workers, and without it on one. The races found
/// (`--races warn`, the default: race data in every SC run and in the SC race run of a
/// TSO check) must be the same too.
fn compare(case: &Case) -> Vec<String> {
    let name = case.name();
    let mut problems = Vec::new();
    for symmetry in [true, false] {
        let full = run(case, false, symmetry, 1);
        if full.json.is_none() {
            return vec![format!("{name}: the full search gave no JSON: {full}")];
        }
        let jobs: &[usize] = if symmetry { &[1, 2] } else { &[1] };
        for &jobs in jobs {
            let reduced = run(case, true, symmetry, jobs);
            let mut differs = Vec::new();
            if reduced.exit != full.exit {
                differs.push("exit");
            }
            for key in ["verdict", "error", "states", "outcomes", "races"] {
                if field(&reduced, key) != field(&full, key) {
                    differs.push(key);
                }
            }
            // A failing run's path and figures come from the unreduced breadth-first
            // search: the same trace, ending at the same error.
            if full.verdict() == Some("fail") && field(&reduced, "trace") != field(&full, "trace") {
                differs.push("trace");
            }
            if full.verdict() == Some("pass") {
                let t = |r: &CheckResult| field(r, "transitions").and_then(Value::as_u64);
                if t(&reduced) > t(&full) {
                    differs.push("more transitions");
                }
            }
            if !differs.is_empty() {
                let sym = if symmetry { "" } else { " --no-symmetry" };
                problems.push(format!(
                    "{name} -j{jobs}{sym}: {} differ\n  with:    {reduced}\n  without: {full}",
                    differs.join(", ")
                ));
            }
        }
    }
    problems
}

/// Persistent sets (`--experimental-persistent-sets`, `explore/persistent.rs`), which
/// store fewer states, against the full search, under SC and TSO without race tracking
/// (`--races allow`: with race data the reduction is off): the same exit, verdict,
/// error, outcomes and failing trace; never more states or transitions; the same
/// state count on one and two workers.
fn compare_persistent(case: &Case) -> Vec<String> {
    if case.tool_args.iter().any(|a| a == "--races") {
        return Vec::new();
    }
    let name = format!("{} with persistent sets", case.name());
    // Persistent sets switch awaits and the hang check off: so does the full search
    // here, so that the two differ only by the reduction.
    let mut allow = vec!["--races", "allow", "--no-awaits"];
    if !case.tool_args.iter().any(|a| a == "--allow-nontermination") {
        allow.push("--allow-nontermination");
    }
    let persistent = [allow.as_slice(), &["--experimental-persistent-sets"]].concat();
    let mut problems = Vec::new();
    for symmetry in [true, false] {
        let full = run_with(case, false, symmetry, 1, &allow);
        if full.json.is_none() {
            return vec![format!("{name}: the full search gave no JSON: {full}")];
        }
        let mut states = Vec::new();
        for jobs in [1, 2] {
            let reduced = run_with(case, true, symmetry, jobs, &persistent);
            let mut differs = Vec::new();
            if reduced.exit != full.exit {
                differs.push("exit");
            }
            for key in ["verdict", "error", "outcomes"] {
                if field(&reduced, key) != field(&full, key) {
                    differs.push(key);
                }
            }
            if full.verdict() == Some("fail") && field(&reduced, "trace") != field(&full, "trace") {
                differs.push("trace");
            }
            let n = |r: &CheckResult, k: &str| field(r, k).and_then(Value::as_u64);
            if full.verdict() == Some("pass") {
                if n(&reduced, "states") > n(&full, "states") {
                    differs.push("more states");
                }
                if n(&reduced, "transitions") > n(&full, "transitions") {
                    differs.push("more transitions");
                }
            }
            states.push(n(&reduced, "states"));
            if !differs.is_empty() {
                let sym = if symmetry { "" } else { " --no-symmetry" };
                problems.push(format!(
                    "{name} -j{jobs}{sym}: {} differ\n  with:    {reduced}\n  without: {full}",
                    differs.join(", ")
                ));
            }
        }
        if states[0] != states[1] {
            problems.push(format!(
                "{name}: states differ on one and two workers: {states:?}"
            ));
        }
    }
    problems
}

/// Every program of the hang corpus (`programs/hangs`: hangs and their passing twins),
/// each with every clang argument set it names, under SC and TSO.
fn hang_cases() -> Vec<Case> {
    corpus::sources_under(&tso_suite::suite_dir().join("programs").join("hangs"))
        .iter()
        .filter_map(|f| corpus::read_program(f).ok())
        .flat_map(|p| {
            p.clang_arg_sets().into_iter().flat_map(move |args| {
                let tool_args = p.check_args.clone();
                let path = p.path.clone();
                [Model::Sc, Model::Tso].map(|model| Case {
                    path: path.clone(),
                    model,
                    tool_args: tool_args.clone(),
                    clang_args: args.clone(),
                    outcomes: false,
                })
            })
        })
        .collect()
}

#[test]
fn litmus_tests_agree_with_and_without_reduction() {
    check_all(litmus_cases(CI_LITMUS_EVERY), "litmus");
}

#[test]
fn corpus_programs_agree_with_and_without_reduction() {
    check_all(corpus_cases("programs", CI_CORPUS_EVERY), "corpus");
}

/// The hang check under sleep sets runs again only the threads a candidate kept asleep
/// (`explore/liveness.rs`): its verdicts, error kinds and traces must be those of the
/// search that records every move.
#[test]
fn hang_verdicts_agree_with_and_without_reduction() {
    let cases = hang_cases();
    assert!(
        cases.len() >= 20,
        "the hang corpus gave {} cases",
        cases.len()
    );
    let problems: Vec<String> = parallel::map(&cases, compare)
        .into_iter()
        .flatten()
        .collect();
    assert!(
        problems.is_empty(),
        "{} problem(s) in {} hang runs:\n\n{}",
        problems.len(),
        cases.len(),
        problems.join("\n\n")
    );
}

#[test]
fn generated_tso_programs_agree_with_and_without_reduction() {
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "differential_por");
    check_all(generated_cases(&dir, CI_GENERATED), "generated");
}

#[test]
fn generated_race_programs_find_the_same_races_with_and_without_reduction() {
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "differential_por_races");
    check_all(race_cases(&dir, CI_GENERATED), "race");
}

/// Both comparisons (`compare`, `compare_persistent`) on every case.
fn check_all(cases: Vec<Case>, what: &str) {
    tso_suite::reduction_cases::check_all(cases, what, |c| {
        let mut p = compare(c);
        p.extend(compare_persistent(c));
        p
    });
}
