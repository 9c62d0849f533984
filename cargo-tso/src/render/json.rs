//! The JSON form of a run (the `cargo tso check --format json` contract, also used
//! inside `cargo tso test --format json` events).

use serde_json::{json, Map, Value};
use tso_engine::{Location, TraceStep};

use crate::render::paths::display_path;
use crate::run_report::{RunReport, ScRerun, X86Rerun};
use crate::settings::CheckSettings;
use crate::settings::MemoryModel;

fn location(loc: &Option<Location>) -> Value {
    match loc {
        Some(l) => Value::String(format!("{}:{}", display_path(&l.file), l.line)),
        None => Value::Null,
    }
}

fn step(step: &TraceStep) -> Value {
    json!({
        "thread": step.thread,
        "location": location(&step.location),
        "action": step.action,
        "notes": step.notes,
        "output": step.output,
        "detail": step.detail,
    })
}

fn race_access(a: &tso_engine::RaceAccess) -> Value {
    json!({
        "thread": a.thread,
        "access": if a.write { "write" } else { "read" },
        "atomic": a.atomic,
        "location": a.file.as_ref().map(|f| format!("{}:{}", display_path(f), a.line)),
    })
}

/// `races`: the data races found beside the verdict (`--races warn`).
pub fn races(outcome: &RunReport) -> Value {
    outcome
        .races
        .iter()
        .map(|r| {
            json!({
                "memory": r.location,
                "message": r.message(),
                "first": race_access(&r.first),
                "second": race_access(&r.second),
            })
        })
        .collect()
}

fn millis(d: std::time::Duration) -> f64 {
    (d.as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0
}

/// The fields of one run: verdict, error, figures, trace, output.
pub fn outcome_fields(outcome: &RunReport, settings: &CheckSettings) -> Map<String, Value> {
    let error = match &outcome.error {
        Some(f) => {
            json!({ "kind": f.kind.as_str(), "message": f.message, "location": location(&f.location) })
        }
        None => Value::Null,
    };
    let mut map = Map::new();
    map.insert("verdict".into(), outcome.verdict.as_str().into());
    map.insert("error".into(), error);
    map.insert(
        "inconclusive_reason".into(),
        outcome.inconclusive_reason.clone().into(),
    );
    if !outcome.diagnosis.is_empty() {
        map.insert("diagnosis".into(), outcome.diagnosis.clone().into());
    }
    map.insert("states".into(), outcome.figures.states.into());
    map.insert("transitions".into(), outcome.figures.transitions.into());
    map.insert("time_ms".into(), millis(outcome.figures.time).into());
    map.insert(
        "peak_memory_bytes".into(),
        outcome.figures.peak_memory.into(),
    );
    map.insert("stored_bytes".into(), outcome.figures.stored_bytes.into());
    map.insert("memory_model".into(), settings.memory_model.as_str().into());
    let bound = match settings.memory_model {
        MemoryModel::Tso => Value::from(settings.sb_bound),
        MemoryModel::Sc | MemoryModel::C11 => Value::Null,
    };
    map.insert("sb_bound".into(), bound);
    if settings.memory_model == MemoryModel::C11 {
        map.insert("history_bound".into(), settings.history_bound.into());
    }
    map.insert("trace".into(), outcome.trace.iter().map(step).collect());
    map.insert("output".into(), outcome.output.clone().into());
    map.insert(
        "races_policy".into(),
        settings.machine.races.as_str().into(),
    );
    map.insert("races".into(), races(outcome));
    if let Some(screen) = &outcome.race_screen {
        let (result, reason) = match screen {
            tso_engine::RaceScreen::NoConflict => ("no-conflict", None),
            tso_engine::RaceScreen::Conflict => ("conflict", None),
            tso_engine::RaceScreen::NotApplicable(why) => ("not-applicable", Some(why.clone())),
        };
        map.insert(
            "race_screen".into(),
            json!({ "result": result, "reason": reason }),
        );
    }
    map.insert(
        "phases".into(),
        outcome
            .figures
            .phases
            .iter()
            .map(|p| json!({ "phase": p.phase.as_str(), "time_ms": millis(p.time), "states": p.states }))
            .collect(),
    );
    // Optional: present only when the program calls a C library function without a
    // model (`unsupported` where a run reaches one), as `-v` lists them.
    if !outcome.unmodelled.is_empty() {
        map.insert("unmodelled".into(), outcome.unmodelled.clone().into());
    }
    map.insert(
        "not_established".into(),
        outcome
            .cut
            .iter()
            .flat_map(|c| c.not_established.iter().map(|p| p.as_str()))
            .collect(),
    );
    map
}

/// `sc_rerun`: the SC verdict of a TSO failure and what it means.
pub fn sc_rerun(sc: &ScRerun) -> Value {
    json!({
        "verdict": sc.outcome.verdict.as_str(),
        "classification": sc.classification.as_str(),
        "message": sc.classification.sentence(),
        "states": sc.outcome.figures.states,
        "time_ms": millis(sc.outcome.figures.time),
    })
}

/// `x86_rerun`: what a C11 failure does on x86 (`tso`, and `sc` when the TSO run
/// failed) and what that means.
pub fn x86_rerun(x86: &X86Rerun) -> Value {
    let run = |run: &RunReport| {
        json!({
            "verdict": run.verdict.as_str(),
            "states": run.figures.states,
            "time_ms": millis(run.figures.time),
        })
    };
    json!({
        "classification": x86.classification.as_str(),
        "message": x86.classification.sentence(),
        "tso": run(&x86.tso),
        "sc": x86.sc.as_ref().map_or(Value::Null, run),
    })
}
