//! Judging a run against the test's expectation (`TSO_TEST`, `TSO_TEST_SHOULD_FAIL*`).

use test_support::Expectation;
use tso_engine::Verdict;

use crate::outcome::{RunOutcome, ScRerun};
use crate::render::{failure, figures};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Passed,
    Failed,
    Ignored,
    /// A limit stopped the search: not a pass (counted as failed).
    Inconclusive,
}

impl Status {
    /// Whether the run counts against the suite.
    pub fn is_failure(self) -> bool {
        matches!(self, Status::Failed | Status::Inconclusive)
    }
}

/// `any` or the kind a should-fail test names.
pub fn expected_kind(expectation: Expectation) -> Option<&'static str> {
    match expectation {
        Expectation::ShouldPass | Expectation::Robust => None,
        Expectation::ShouldFail(kind) => Some(kind.map_or(test_support::ANY_KIND, |k| k.as_str())),
    }
}

/// The test's status and, for anything but a plain pass, the explanation (for an
/// expected failure: its counterexample, shown in the report's "expected failures").
pub fn judge(
    expectation: Expectation,
    outcome: &RunOutcome,
    sc: Option<&ScRerun>,
) -> (Status, String) {
    let details = || failure::details(outcome, sc, true);
    let found_kind = outcome.failure.as_ref().map(|f| f.kind.as_str());
    match (outcome.verdict, expectation) {
        (Verdict::Inconclusive, _) => (
            Status::Inconclusive,
            format!("{}{}\n", details(), figures::line(&outcome.figures)),
        ),
        (Verdict::Error, _) => (
            Status::Failed,
            format!("the test could not be checked:\n{}", details()),
        ),
        (Verdict::Pass, Expectation::ShouldPass | Expectation::Robust) => {
            (Status::Passed, String::new())
        }
        (Verdict::Fail, Expectation::ShouldPass | Expectation::Robust) => {
            (Status::Failed, details())
        }
        (Verdict::Pass, Expectation::ShouldFail(_)) => {
            let kind = expected_kind(expectation).unwrap_or(test_support::ANY_KIND);
            let wanted = if kind == test_support::ANY_KIND {
                String::new()
            } else {
                format!(" (`{kind}`)")
            };
            (
                Status::Failed,
                format!(
                    "expected failure{wanted} but passed: no error is reachable\n{}\n",
                    figures::line(&outcome.figures)
                ),
            )
        }
        (Verdict::Fail, Expectation::ShouldFail(kind)) => match (kind, found_kind) {
            (Some(kind), Some(found)) if kind.as_str() != found => (
                Status::Failed,
                format!(
                    "expected failure `{kind}`, but the test failed with `{found}`:\n{}",
                    details()
                ),
            ),
            _ => (Status::Passed, details()),
        },
    }
}

#[cfg(test)]
mod tests {
    /// test-support (which must stay free of LLVM) keeps its own list of the error
    /// kinds a test may expect; every one must be a kind the engine reports.
    #[test]
    fn every_expectable_kind_is_an_engine_kind() {
        for kind in test_support::FailureKind::ALL {
            assert!(
                tso_engine::ErrorKind::parse(kind.as_str()).is_some(),
                "`{}` is not an engine error kind",
                kind.as_str()
            );
        }
    }
}
