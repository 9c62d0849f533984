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
