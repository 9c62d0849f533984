//! libtest's JSON event stream (one object per line), with the checker's fields
//! added to each test event.

use std::io::Write;

use serde_json::{json, Map, Value};

use crate::render::json as run_json;
use crate::settings::CheckSettings;
use crate::test_cmd::catalog::TestCase;
use crate::test_cmd::expect::{self, Judgement, Status};
use crate::test_cmd::report::explain::explanation;
use crate::test_cmd::report::{Reporter, SuiteInfo, Summary};
use crate::test_cmd::runner::TestResult;
use crate::test_cmd::sweep::{self, SweepTable};

pub struct Json {
    pub settings: CheckSettings,
}

fn emit(value: Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{value}");
    let _ = out.flush();
}

/// The judgement as fields: what the test declares, what was found, and what SC says.
fn judgement(judgement: &Judgement) -> Value {
    json!({
        "status": match judgement.status {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Ignored => "ignored",
            Status::Inconclusive => "inconclusive",
            Status::InconclusiveAllowed => "inconclusive-allowed",
        },
        "expected": judgement.expectation.map(expect::expected_word),
        "expected_kind": judgement.expectation.and_then(expect::expected_kind),
        "finding": judgement.finding.as_str(),
        "found_kind": judgement.found_kind.map(|k| k.as_str()),
        "classification": judgement.classification_word(),
        "other_kinds": judgement.other_kinds.iter().map(|k| k.as_str()).collect::<Vec<_>>(),
    })
}

/// The checker's fields of one run: verdict, error, figures, trace, output, and the
/// memory this test's exploration used.
fn run_fields(
    result: &TestResult,
    case: &TestCase,
    settings: &CheckSettings,
) -> Map<String, Value> {
    let mut map = Map::new();
    let settings = CheckSettings {
        sb_bound: result.bound,
        memory_model: result.model,
        ..settings.clone()
    };
    if let Some(outcome) = &result.outcome {
        map.extend(run_json::outcome_fields(outcome, &settings));
        // The process's high-water mark says nothing about one test among many.
        map.remove("peak_memory_bytes");
        map.insert(
            "memory_bytes".into(),
            outcome.figures.exploration_bytes.into(),
        );
    } else {
        map.insert("verdict".into(), "error".into());
    }
    map.insert("opt_level".into(), case.unit.opt_level.clone().into());
    map
}

impl Reporter for Json {
    fn suite_started(&mut self, info: &SuiteInfo) {
        emit(json!({
            "type": "suite",
            "event": "started",
            "test_count": info.count,
            "compiled": info.cache.compiled,
            "cached": info.cache.cached,
        }));
    }

    fn test_started(&mut self, name: &str) {
        emit(json!({ "type": "test", "event": "started", "name": name }));
    }

    fn test_finished(&mut self, result: &TestResult, case: &TestCase) {
        let event = match result.judgement.status {
            Status::Passed => "ok",
            Status::Failed | Status::Inconclusive => "failed",
            // Neither passed nor failed: libtest's word for a test that did not count.
            Status::Ignored | Status::InconclusiveAllowed => "ignored",
        };
        let mut map = Map::new();
        map.insert("type".into(), "test".into());
        map.insert("name".into(), result.name.clone().into());
        map.insert("event".into(), event.into());
        if result.judgement.status == Status::Ignored {
            emit(Value::Object(map));
            return;
        }
        map.insert("exec_time".into(), result.exec_time.as_secs_f64().into());
        map.insert(
            "inconclusive".into(),
            matches!(
                result.judgement.status,
                Status::Inconclusive | Status::InconclusiveAllowed
            )
            .into(),
        );
        map.insert(
            "expected_failure".into(),
            result
                .judgement
                .expectation
                .and_then(expect::expected_kind)
                .map_or(Value::Null, Value::from),
        );
        map.insert("judgement".into(), judgement(&result.judgement));
        map.extend(run_fields(result, case, &self.settings));
        if let Some(sc) = &result.sc {
            map.insert("sc_rerun".into(), run_json::sc_rerun(sc));
        }
        if let Some(x86) = &result.x86 {
            map.insert("x86_rerun".into(), run_json::x86_rerun(x86));
        }
        if result.orderings.is_some() || result.fences.is_some() {
            map.insert(
                "fence_suggestion".into(),
                crate::render::orderings::suggestion_json(
                    result.orderings.as_ref(),
                    result.fences.as_ref(),
                ),
            );
        }
        let text = explanation(result);
        if !text.is_empty() {
            map.insert("stdout".into(), text.into());
        }
        emit(Value::Object(map));
    }

    fn row_finished(&mut self, result: &TestResult, case: &TestCase) {
        let mut map = Map::new();
        map.insert("type".into(), "bound".into());
        map.insert("name".into(), result.name.clone().into());
        map.insert("test".into(), case.name.clone().into());
        map.extend(run_fields(result, case, &self.settings));
        emit(Value::Object(map));
    }

    fn sweep(&mut self, tables: &[SweepTable<'_>]) {
        for table in tables {
            let rows: Vec<Value> = table
                .rows
                .iter()
                .map(|r| {
                    json!({
                        "sb_bound": r.bound,
                        "verdict": r.outcome.as_ref().map_or("error", |o| o.verdict.as_str()),
                        "error_kind": r.outcome.as_ref().and_then(|o| o.error.as_ref()).map(|f| f.kind.as_str()),
                        "states": r.outcome.as_ref().map_or(0, |o| o.figures.states),
                        "time_ms": r.outcome.as_ref().map_or(0.0, |o| o.figures.time.as_secs_f64() * 1000.0),
                    })
                })
                .collect();
            emit(json!({
                "type": "sweep",
                "name": table.test,
                "rows": rows,
                "smallest_failing_bound": table.first_failing_bound(),
                "result": table.conclusion().map(|c| sweep::status_word(c.judgement.status)),
            }));
        }
    }

    fn suite_finished(&mut self, _results: &[TestResult], summary: &Summary) {
        emit(json!({
            "type": "suite",
            "event": if summary.ok() { "ok" } else { "failed" },
            "passed": summary.passed,
            "failed": summary.failed,
            "inconclusive": summary.inconclusive,
            "inconclusive_allowed": summary.inconclusive_allowed,
            "ignored": summary.ignored,
            "measured": 0,
            "filtered_out": summary.filtered_out,
            "not_run": summary.not_run,
            "interrupted": summary.interrupted,
            "exec_time": summary.elapsed.as_secs_f64(),
        }));
    }
}
