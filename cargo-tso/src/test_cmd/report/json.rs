//! libtest's JSON event stream (one object per line), with the checker's fields
//! added to each test event.

use std::io::Write;

use serde_json::{json, Map, Value};

use crate::render::json as run_json;
use crate::settings::CheckSettings;
use crate::test_cmd::catalog::{CaseKind, TestCase};
use crate::test_cmd::expect::{self, Status};
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
        let event = match result.status {
            Status::Passed => "ok",
            Status::Failed | Status::Inconclusive => "failed",
            Status::Ignored => "ignored",
        };
        let mut map = Map::new();
        map.insert("type".into(), "test".into());
        map.insert("name".into(), result.name.clone().into());
        map.insert("event".into(), event.into());
        if result.status == Status::Ignored {
            emit(Value::Object(map));
            return;
        }
        map.insert("exec_time".into(), result.exec_time.as_secs_f64().into());
        map.insert(
            "inconclusive".into(),
            (result.status == Status::Inconclusive).into(),
        );
        if let CaseKind::Check { expectation, .. } = &case.kind {
            map.insert(
                "expected_failure".into(),
                expect::expected_kind(*expectation).map_or(Value::Null, Value::from),
            );
        }
        let settings = CheckSettings {
            sb_bound: result.bound,
            ..self.settings.clone()
        };
        if let Some(outcome) = &result.outcome {
            map.extend(run_json::outcome_fields(outcome, &settings));
        } else {
            map.insert("verdict".into(), "error".into());
        }
        if let Some(sc) = &result.sc {
            map.insert("sc_rerun".into(), run_json::sc_rerun(sc));
        }
        if !result.message.is_empty() {
            map.insert("stdout".into(), result.message.clone().into());
        }
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
                        "result": sweep::status_word(r.status),
                        "verdict": r.outcome.as_ref().map_or("error", |o| o.verdict.as_str()),
                        "error_kind": r.outcome.as_ref().and_then(|o| o.failure.as_ref()).map(|f| f.kind.as_str()),
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
            "ignored": summary.ignored,
            "measured": 0,
            "filtered_out": summary.filtered_out,
            "exec_time": summary.elapsed.as_secs_f64(),
        }));
    }
}
