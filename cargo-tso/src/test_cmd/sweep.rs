//! `--sb-bound 1,2,4,32,0`: every test at every bound, and a table per test that
//! shows how deep a store buffer its bug needs.

use std::fmt::Write as _;

use crate::settings::bound_name;
use crate::test_cmd::expect::Status;
use crate::test_cmd::runner::TestResult;

/// One test's results, one row per bound in the order given.
#[derive(Debug, Clone)]
pub struct SweepTable<'r> {
    pub test: String,
    pub rows: Vec<&'r TestResult>,
}

impl SweepTable<'_> {
    /// The smallest bound at which the test did not pass (0 = unbounded is largest).
    pub fn first_failing_bound(&self) -> Option<u32> {
        self.rows
            .iter()
            .filter(|r| r.status.is_failure())
            .map(|r| r.bound)
            .min_by_key(|&b| if b == 0 { u64::MAX } else { b as u64 })
    }
}

/// Groups sweep results by test, tests in catalog order, rows in `bounds` order.
pub fn tables<'r>(
    test_names: &[String],
    results: &'r [TestResult],
    bounds: &[u32],
) -> Vec<SweepTable<'r>> {
    let mut cases: Vec<usize> = results
        .iter()
        .filter(|r| r.status != Status::Ignored)
        .map(|r| r.case)
        .collect();
    cases.sort_unstable();
    cases.dedup();
    cases
        .into_iter()
        .map(|case| {
            let mut rows: Vec<&TestResult> = results
                .iter()
                .filter(|r| r.case == case && r.status != Status::Ignored)
                .collect();
            rows.sort_by_key(|r| bounds.iter().position(|&b| b == r.bound));
            SweepTable {
                test: test_names[case].clone(),
                rows,
            }
        })
        .collect()
}

pub fn status_word(status: Status) -> &'static str {
    match status {
        Status::Passed => "ok",
        Status::Failed => "FAILED",
        Status::Ignored => "ignored",
        Status::Inconclusive => "INCONCLUSIVE",
    }
}

fn verdict_cell(result: &TestResult) -> String {
    match &result.outcome {
        Some(o) => match &o.failure {
            Some(f) => format!("{} ({})", o.verdict.as_str(), f.kind),
            None => o.verdict.as_str().to_owned(),
        },
        None => "error".to_owned(),
    }
}

/// The table as text.
pub fn render(table: &SweepTable<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "sb-bound sweep: {}", table.test);
    let verdicts: Vec<String> = table.rows.iter().map(|r| verdict_cell(r)).collect();
    let width = verdicts
        .iter()
        .map(|v| v.chars().count())
        .max()
        .unwrap_or(0)
        .max("verdict".len());
    let _ = writeln!(
        out,
        "  {:<10} {:<13} {:<width$} {:>10} {:>9}",
        "bound", "result", "verdict", "states", "time"
    );
    for (row, verdict) in table.rows.iter().zip(&verdicts) {
        let states = row.outcome.as_ref().map_or(0, |o| o.figures.states);
        let time = row
            .outcome
            .as_ref()
            .map_or(row.exec_time, |o| o.figures.time);
        let _ = writeln!(
            out,
            "  {:<10} {:<13} {:<width$} {:>10} {:>8.2}s",
            bound_name(row.bound),
            status_word(row.status),
            verdict,
            states,
            time.as_secs_f64()
        );
    }
    match table.first_failing_bound() {
        Some(bound) => {
            let _ = writeln!(out, "  smallest failing bound: {}", bound_name(bound));
        }
        None => {
            let _ = writeln!(out, "  passes at every bound");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tso_engine::{ErrorKind, Verdict};

    use super::*;
    use crate::outcome::{Failure, Figures, RunOutcome};

    fn result(bound: u32, verdict: Verdict, states: u64) -> TestResult {
        let failing = verdict == Verdict::Fail;
        let mut outcome = RunOutcome::tool_error(ErrorKind::Assertion, String::new());
        outcome.verdict = verdict;
        outcome.failure = failing.then(|| Failure {
            kind: ErrorKind::Assertion,
            message: "x".into(),
            location: None,
        });
        outcome.figures = Figures {
            states,
            time: Duration::from_millis(20),
            ..Figures::default()
        };
        TestResult {
            name: format!("p::f::t [sb={}]", bound_name(bound)),
            case: 0,
            bound,
            status: if failing {
                Status::Failed
            } else {
                Status::Passed
            },
            message: String::new(),
            outcome: Some(outcome),
            sc: None,
            exec_time: Duration::ZERO,
        }
    }

    #[test]
    fn table_rows_follow_the_bounds_and_name_the_smallest_failing_one() {
        let results = vec![
            result(0, Verdict::Fail, 900),
            result(1, Verdict::Pass, 40),
            result(2, Verdict::Fail, 120),
        ];
        let tables = tables(&["p::f::t".to_owned()], &results, &[1, 2, 0]);
        assert_eq!(tables.len(), 1);
        assert_eq!(
            render(&tables[0]),
            "sb-bound sweep: p::f::t\n\
             \x20 bound      result        verdict              states      time\n\
             \x20 1          ok            pass                     40     0.02s\n\
             \x20 2          FAILED        fail (assertion)        120     0.02s\n\
             \x20 unbounded  FAILED        fail (assertion)        900     0.02s\n\
             \x20 smallest failing bound: 2\n"
        );
    }

    #[test]
    fn unbounded_is_the_largest_bound() {
        let results = vec![result(0, Verdict::Fail, 1), result(4, Verdict::Pass, 1)];
        let tables = tables(&["t".to_owned()], &results, &[4, 0]);
        assert_eq!(tables[0].first_failing_bound(), Some(0));
    }
}
