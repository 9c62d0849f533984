//! `--sb-bound 1,2,4,32,0`: every test at every bound, and a table per test that
//! shows how deep a store buffer its bug needs. The test is then judged once, at the
//! smallest bound where it fails (an expected failure too), and its counterexample is
//! shown once, at that bound.

use std::fmt::Write as _;

use tso_engine::Verdict;

use crate::settings::bound_name;
use crate::test_cmd::expect::Status;
use crate::test_cmd::runner::TestResult;

/// One test's results, one row per bound in the order given.
#[derive(Debug, Clone)]
pub struct SweepTable<'r> {
    pub test: String,
    pub rows: Vec<&'r TestResult>,
}

/// Bounds in increasing buffer depth: 0 (unbounded) is the largest.
fn depth(bound: u32) -> u64 {
    if bound == 0 {
        u64::MAX
    } else {
        u64::from(bound)
    }
}

fn fails(row: &TestResult) -> bool {
    row.outcome
        .as_ref()
        .is_some_and(|o| o.verdict == Verdict::Fail)
}

impl SweepTable<'_> {
    /// The row at the smallest bound at which an error is reachable.
    fn first_failing_row(&self) -> Option<&TestResult> {
        self.rows
            .iter()
            .copied()
            .filter(|r| fails(r))
            .min_by_key(|r| depth(r.bound))
    }

    /// The smallest bound at which an error is reachable.
    pub fn first_failing_bound(&self) -> Option<u32> {
        self.first_failing_row().map(|r| r.bound)
    }

    /// The test's result: its judgement at the smallest failing bound; without one,
    /// at the first bound that gave no verdict; otherwise at the deepest bound.
    pub fn conclusion(&self) -> Option<TestResult> {
        let row = self
            .first_failing_row()
            .or_else(|| {
                self.rows.iter().copied().find(|r| {
                    r.outcome
                        .as_ref()
                        .is_none_or(|o| o.verdict != Verdict::Pass)
                })
            })
            .or_else(|| self.rows.iter().copied().max_by_key(|r| depth(r.bound)))?;
        Some(TestResult {
            name: self.test.clone(),
            ..row.clone()
        })
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
        .filter(|r| r.judgement.status != Status::Ignored)
        .map(|r| r.case)
        .collect();
    cases.sort_unstable();
    cases.dedup();
    cases
        .into_iter()
        .map(|case| {
            let mut rows: Vec<&TestResult> = results
                .iter()
                .filter(|r| r.case == case && r.judgement.status != Status::Ignored)
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
        Status::InconclusiveAllowed => "inconclusive (allowed)",
    }
}

/// `pass`, `fail (assertion)`, `inconclusive` or `error`: what one bound found.
pub fn verdict_cell(result: &TestResult) -> String {
    match &result.outcome {
        Some(o) => match &o.error {
            Some(f) if o.verdict == Verdict::Fail => format!("{} ({})", o.verdict.as_str(), f.kind),
            _ => o.verdict.as_str().to_owned(),
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
        "  {:<10} {:<width$} {:>10} {:>9}",
        "bound", "verdict", "states", "time"
    );
    for (row, verdict) in table.rows.iter().zip(&verdicts) {
        let states = row.outcome.as_ref().map_or(0, |o| o.figures.states);
        let time = row
            .outcome
            .as_ref()
            .map_or(row.exec_time, |o| o.figures.time);
        let _ = writeln!(
            out,
            "  {:<10} {:<width$} {:>10} {:>8.2}s",
            bound_name(row.bound),
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
            let _ = writeln!(out, "  no failure at any bound");
        }
    }
    if let Some(conclusion) = table.conclusion() {
        let _ = writeln!(
            out,
            "  result: {}",
            status_word(conclusion.judgement.status)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tso_engine::{ErrorKind, Verdict};

    use super::*;
    use crate::run_report::{Figures, RunError, RunReport};
    use crate::settings::MemoryModel;
    use crate::test_cmd::expect::{judge, Finding};
    use test_support::Expectation;

    fn result(bound: u32, verdict: Verdict, states: u64) -> TestResult {
        judged(Expectation::ShouldPass, bound, verdict, states)
    }

    fn judged(expectation: Expectation, bound: u32, verdict: Verdict, states: u64) -> TestResult {
        let failing = verdict == Verdict::Fail;
        let mut outcome = RunReport::tool_error(ErrorKind::Assertion, String::new());
        outcome.verdict = verdict;
        outcome.error = failing.then(|| RunError {
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
            judgement: judge(expectation, MemoryModel::Tso, &outcome, None, None),
            note: None,
            outcome: Some(outcome),
            sc: None,
            x86: None,
            fences: None,
            orderings: None,
            exec_time: Duration::ZERO,
            model: MemoryModel::Tso,
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
             \x20 bound      verdict              states      time\n\
             \x20 1          pass                     40     0.02s\n\
             \x20 2          fail (assertion)        120     0.02s\n\
             \x20 unbounded  fail (assertion)        900     0.02s\n\
             \x20 smallest failing bound: 2\n\
             \x20 result: FAILED\n"
        );
    }

    #[test]
    fn unbounded_is_the_largest_bound() {
        let results = vec![result(0, Verdict::Fail, 1), result(4, Verdict::Pass, 1)];
        let tables = tables(&["t".to_owned()], &results, &[4, 0]);
        assert_eq!(tables[0].first_failing_bound(), Some(0));
    }

    #[test]
    fn an_expected_failure_is_judged_at_its_smallest_failing_bound() {
        let expect_fail = Expectation::ShouldFail(None);
        let results = vec![
            judged(expect_fail, 1, Verdict::Pass, 10),
            judged(expect_fail, 4, Verdict::Fail, 30),
            judged(expect_fail, 0, Verdict::Fail, 90),
        ];
        let tables = tables(&["t".to_owned()], &results, &[1, 4, 0]);
        let conclusion = tables[0].conclusion().expect("a conclusion");
        assert_eq!(conclusion.bound, 4);
        assert_eq!(conclusion.name, "t");
        assert_eq!(conclusion.judgement.status, Status::Passed);
        assert_eq!(conclusion.judgement.finding, Finding::FailedAsExpected);
        // Passing everywhere: judged at the deepest bound, an unexpected pass.
        let results = vec![
            judged(expect_fail, 0, Verdict::Pass, 10),
            judged(expect_fail, 2, Verdict::Pass, 30),
        ];
        let tables = super::tables(&["t".to_owned()], &results, &[0, 2]);
        let conclusion = tables[0].conclusion().expect("a conclusion");
        assert_eq!(conclusion.bound, 0);
        assert_eq!(conclusion.judgement.finding, Finding::UnexpectedPass);
    }
}
