//! Reporters: libtest's pretty, terse and JSON formats, and JUnit XML. They get
//! results with structured judgements and decide on the text themselves.

pub mod explain;
pub mod html;
pub mod human;
pub mod json;
pub mod junit;

use std::time::Duration;

use crate::test_cmd::catalog::TestCase;
use crate::test_cmd::expect::Status;
use crate::test_cmd::runner::TestResult;
use crate::test_cmd::sweep::SweepTable;
use crate::test_cmd::units::CacheCounts;

pub struct SuiteInfo {
    /// Tests reported (run and ignored).
    pub count: usize,
    pub cache: CacheCounts,
}

#[derive(Debug, Default, Clone)]
pub struct Summary {
    pub passed: usize,
    /// Failed, inconclusive included.
    pub failed: usize,
    pub inconclusive: usize,
    /// Of the inconclusive, those allowed to be (not counted as failed).
    pub inconclusive_allowed: usize,
    pub ignored: usize,
    pub filtered_out: usize,
    /// Tests never started because `--fail-fast` stopped the run.
    pub not_run: usize,
    pub elapsed: Duration,
    /// The signal that interrupted the run (`SIGINT`), if one did.
    pub interrupted: Option<&'static str>,
}

impl Summary {
    pub fn of(
        results: &[TestResult],
        filtered_out: usize,
        not_run: usize,
        elapsed: Duration,
    ) -> Summary {
        let count = |status| {
            results
                .iter()
                .filter(|r| r.judgement.status == status)
                .count()
        };
        Summary {
            passed: count(Status::Passed),
            failed: count(Status::Failed) + count(Status::Inconclusive),
            inconclusive: count(Status::Inconclusive) + count(Status::InconclusiveAllowed),
            inconclusive_allowed: count(Status::InconclusiveAllowed),
            ignored: count(Status::Ignored),
            filtered_out,
            not_run,
            elapsed,
            interrupted: None,
        }
    }

    pub fn ok(&self) -> bool {
        self.failed == 0 && self.interrupted.is_none()
    }
}

pub trait Reporter {
    fn suite_started(&mut self, info: &SuiteInfo);
    fn test_started(&mut self, _name: &str) {}
    fn test_finished(&mut self, result: &TestResult, case: &TestCase);
    /// One bound of a sweep finished (the test itself is reported after the sweep).
    fn row_finished(&mut self, result: &TestResult, case: &TestCase);
    fn sweep(&mut self, tables: &[SweepTable<'_>]);
    /// `results`: one per test (a sweep's conclusions), in plan order.
    fn suite_finished(&mut self, results: &[TestResult], summary: &Summary);
}

/// ANSI colors for the human formats, or none.
#[derive(Debug, Clone, Copy)]
pub struct Paint {
    pub enabled: bool,
}

impl Paint {
    fn wrap(self, code: &str, text: &str) -> String {
        if self.enabled {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
    pub fn green(self, text: &str) -> String {
        self.wrap("32", text)
    }
    pub fn red(self, text: &str) -> String {
        self.wrap("31", text)
    }
    pub fn yellow(self, text: &str) -> String {
        self.wrap("33", text)
    }

    pub fn status(self, status: Status) -> String {
        let word = crate::test_cmd::sweep::status_word(status);
        match status {
            Status::Passed => self.green(word),
            Status::Failed => self.red(word),
            Status::Ignored | Status::Inconclusive | Status::InconclusiveAllowed => {
                self.yellow(word)
            }
        }
    }
}
