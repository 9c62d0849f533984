//! Determinism: the same input gives the same verdict, state count and
//! counterexample (the JSON `trace`) across 5 runs, for failing and passing programs,
//! under SC and under TSO, and with 1, 2 or 3 search workers (`--jobs`); races reported
//! beside the verdict too.

use serde_json::Value;
use tso_suite::check::{CheckRun, Model};
use tso_suite::parallel;

const RUNS: usize = 5;

/// (program under tests/programs, model, whether it must fail under that model)
const CASES: &[(&str, Model, bool)] = &[
    ("threads/one_bad_interleaving.c", Model::Sc, true),
    ("threads/one_bad_interleaving.c", Model::Tso, true),
    ("errors/deadlock_lock_order.c", Model::Sc, true),
    ("errors/deadlock_lock_order.c", Model::Tso, true),
    ("mutex/peterson_buggy.c", Model::Sc, true),
    ("mutex/peterson.c", Model::Tso, true),
    ("tso/sb_assert.c", Model::Tso, true),
    ("errors/uaf_heap.c", Model::Tso, true),
    ("mutex/peterson.c", Model::Sc, false),
    ("mutex/peterson_fenced.c", Model::Tso, false),
    ("threads/mutex_counter.c", Model::Sc, false),
    ("threads/mutex_counter.c", Model::Tso, false),
    ("tso/sb_assert.c", Model::Sc, false),
    // Races are reported beside a passing verdict (`--races warn`, the default): the
    // same races for any number of workers.
    ("races/mutex_racy.c", Model::Sc, false),
    ("races/mutex_racy.c", Model::Tso, false),
    ("races/release_publish_racy.c", Model::Tso, false),
];

/// The parts of the JSON that must not vary between runs (time and memory may).
fn stable_part(json: &Value) -> Value {
    let mut v = serde_json::Map::new();
    for key in [
        "verdict",
        "error",
        "states",
        "transitions",
        "trace",
        "memory_model",
        "sb_bound",
        "races",
    ] {
        v.insert(
            key.to_string(),
            json.get(key).cloned().unwrap_or(Value::Null),
        );
    }
    Value::Object(v)
}

#[test]
fn same_input_same_verdict_states_and_trace() {
    let jobs: Vec<(usize, usize)> = (0..CASES.len())
        .flat_map(|c| (0..RUNS).map(move |r| (c, r)))
        .collect();
    let results = parallel::map(&jobs, |&(c, r)| {
        let (file, model, _) = CASES[c];
        CheckRun::new(tso_suite::suite_dir().join("programs").join(file), model)
            .jobs(1 + r % 3)
            .run()
    });
    let mut problems = Vec::new();
    for (c, &(file, model, must_fail)) in CASES.iter().enumerate() {
        let runs: Vec<_> = jobs
            .iter()
            .zip(&results)
            .filter(|((jc, _), _)| *jc == c)
            .map(|(_, r)| r)
            .collect();
        let first = runs[0];
        let Some(json) = &first.json else {
            problems.push(format!("{file} under {}: {first}", model.as_str()));
            continue;
        };
        let want_exit = if must_fail { 1 } else { 0 };
        if first.exit != Some(want_exit) {
            problems.push(format!(
                "{file} under {}: expected exit {want_exit}: {first}",
                model.as_str()
            ));
        }
        let trace_len = json
            .get("trace")
            .and_then(|t| t.as_array())
            .map_or(0, |t| t.len());
        if must_fail && trace_len == 0 {
            problems.push(format!(
                "{file} under {}: a failing run has no `trace` steps",
                model.as_str()
            ));
        }
        let races = json
            .get("races")
            .and_then(|r| r.as_array())
            .map_or(0, |r| r.len());
        if file.contains("_racy") && races == 0 {
            problems.push(format!("{file} under {}: no race reported", model.as_str()));
        }
        let reference = stable_part(json);
        for (i, r) in runs.iter().enumerate().skip(1) {
            let this = r.json.as_ref().map(stable_part);
            if this.as_ref() != Some(&reference) || r.exit != first.exit {
                problems.push(format!(
                    "{file} under {}: run {} differs from run 1\n  run 1: {reference}\n  run {}: {}",
                    model.as_str(),
                    i + 1,
                    i + 1,
                    this.map_or_else(|| r.summary(), |v| v.to_string())
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} determinism problem(s):\n\n{}",
        problems.len(),
        problems.join("\n\n")
    );
}

/// A failing run lists the races of the states the unreduced breadth-first search
/// expands up to its error (`tso_engine::explore::take_races`), so one worker
/// (depth-first, then breadth-first for the counterexample) and two (breadth-first)
/// list the same ones: every corpus program that fails under SC (under TSO the races
/// come from the same run without store buffers).
#[test]
fn a_failing_run_lists_the_same_races_for_any_number_of_workers() {
    let files = tso_suite::corpus::sources_under(&tso_suite::suite_dir().join("programs"));
    let cases: Vec<(tso_suite::corpus::Program, Model)> = files
        .iter()
        .filter_map(|f| tso_suite::corpus::read_program(f).ok())
        .filter(|p| p.expect_sc.verdict() == "fail")
        .map(|p| (p, Model::Sc))
        .collect();
    let results = parallel::map(&cases, |(p, model)| {
        let args = p.clang_arg_sets().pop().unwrap_or_default();
        let run = |jobs: usize| {
            CheckRun::new(&p.path, *model)
                .tool_args(&p.check_args)
                .clang_args(&args)
                .jobs(jobs)
                .run()
        };
        (run(1), run(2))
    });
    let mut problems = Vec::new();
    let mut with_races = 0;
    for ((p, model), (one, two)) in cases.iter().zip(&results) {
        let races = |r: &tso_suite::check::CheckResult| r.json.as_ref().map(|j| j["races"].clone());
        let name = format!(
            "{} under {}",
            tso_suite::corpus::short(&p.path),
            model.as_str()
        );
        match (races(one), races(two)) {
            (Some(a), Some(b)) if a == b => {
                with_races += a.as_array().is_some_and(|a| !a.is_empty()) as usize;
            }
            (Some(a), Some(b)) => {
                problems.push(format!("{name}: -j1 lists\n  {a}\n-j2 lists\n  {b}"))
            }
            _ => problems.push(format!("{name}: {one}\n{two}")),
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {} failing runs list different races with one and two workers:\n\n{}",
        problems.len(),
        cases.len(),
        problems.join("\n\n")
    );
    assert!(
        with_races * 10 >= cases.len(),
        "too few failing programs with races ({with_races} of {})",
        cases.len()
    );
}
