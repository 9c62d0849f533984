//! Judging a run against the test's expectation (`TSO_TEST`, `TSO_TEST_SHOULD_FAIL*`,
//! `TSO_TEST_SHOULD_FAIL_UNDER_TSO*`, `TSO_TEST_SHOULD_FAIL_UNDER_C11*`). The judgement is data; the reporters turn it
//! into text (`report::explain`) or fields (JSON, JUnit).

use test_support::Expectation;
use tso_engine::{ErrorKind, Verdict};

use crate::run_report::{RunReport, ScClassification, ScRerun, X86Classification, X86Rerun};
use crate::settings::MemoryModel;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Passed,
    Failed,
    Ignored,
    /// A limit stopped the search: not a pass (counted as failed).
    Inconclusive,
    /// A limit stopped the search of a test allowed to be inconclusive (`build.rs`
    /// `allow_inconclusive`, `--allow-inconclusive`): neither a pass nor a failure.
    InconclusiveAllowed,
}

impl Status {
    /// Whether the run counts against the suite.
    pub fn is_failure(self) -> bool {
        matches!(self, Status::Failed | Status::Inconclusive)
    }
}

/// What was found, relative to what the test declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finding {
    /// No error is reachable, as declared.
    Passed,
    /// The declared failure is reachable.
    FailedAsExpected,
    /// An error is reachable in a test that must pass.
    UnexpectedFailure,
    /// No error is reachable in a test that must fail.
    UnexpectedPass,
    /// An error of another kind than the declared one.
    WrongKind,
    /// A test declared to fail only under TSO fails under SC too.
    FailsUnderSc,
    /// A test declared to fail only under TSO: the SC re-run gave no verdict.
    ScUnknown,
    /// A test declared to fail only under C11 fails under x86-TSO too.
    FailsOnX86,
    /// A test declared to fail only under C11: the x86 re-runs gave no verdict.
    X86Unknown,
    /// A limit stopped the search.
    Inconclusive,
    /// The test could not be checked (compile error, unsupported construct, internal
    /// error): the reason is in the result's note or outcome.
    NotChecked,
    Ignored,
}

impl Finding {
    /// `failed-as-expected`, for JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Finding::Passed => "passed",
            Finding::FailedAsExpected => "failed-as-expected",
            Finding::UnexpectedFailure => "unexpected-failure",
            Finding::UnexpectedPass => "unexpected-pass",
            Finding::WrongKind => "wrong-kind",
            Finding::FailsUnderSc => "fails-under-sc",
            Finding::ScUnknown => "sc-unknown",
            Finding::FailsOnX86 => "fails-on-x86",
            Finding::X86Unknown => "x86-unknown",
            Finding::Inconclusive => "inconclusive",
            Finding::NotChecked => "not-checked",
            Finding::Ignored => "ignored",
        }
    }
}

/// A test's result as structured data: the status it counts as, what it declared,
/// what was found and, for TSO failures, what SC says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    pub status: Status,
    /// `None` for a file that could not be compiled (no test function known).
    pub expectation: Option<Expectation>,
    pub finding: Finding,
    pub found_kind: Option<ErrorKind>,
    pub classification: Option<ScClassification>,
    /// For C11 failures: what the re-runs on x86 say.
    pub x86: Option<X86Classification>,
    /// A test naming a kind: the kinds of the other errors its search met, each ending
    /// its path (with `WrongKind`, the named kind is reachable on no other path).
    pub other_kinds: Vec<ErrorKind>,
}

impl Judgement {
    pub fn ignored(expectation: Option<Expectation>) -> Judgement {
        Judgement {
            status: Status::Ignored,
            expectation,
            finding: Finding::Ignored,
            found_kind: None,
            classification: None,
            x86: None,
            other_kinds: Vec::new(),
        }
    }

    pub fn not_checked(expectation: Option<Expectation>) -> Judgement {
        Judgement {
            status: Status::Failed,
            expectation,
            finding: Finding::NotChecked,
            found_kind: None,
            classification: None,
            x86: None,
            other_kinds: Vec::new(),
        }
    }

    /// `needs-tso`, `needs-c11`, ...: what the re-runs under other models say, for
    /// JSON.
    pub fn classification_word(&self) -> Option<&'static str> {
        self.classification
            .map(ScClassification::as_str)
            .or(self.x86.map(X86Classification::as_str))
    }

    /// Whether the report shows an explanation for this result (anything but a plain
    /// pass or an ignored test).
    pub fn has_explanation(&self) -> bool {
        !matches!(self.finding, Finding::Passed | Finding::Ignored)
    }
}

/// `pass`, `fail`, `fail-under-tso`, `fail-under-c11` or `robust`, for JSON.
pub fn expected_word(expectation: Expectation) -> &'static str {
    match expectation {
        Expectation::ShouldPass => "pass",
        Expectation::Robust => "robust",
        Expectation::ShouldFail(_) => "fail",
        Expectation::ShouldFailUnderTso(_) => "fail-under-tso",
        Expectation::ShouldFailUnderC11(_) => "fail-under-c11",
    }
}

/// `any` or the kind a should-fail test names; `None` for a test that must pass.
pub fn expected_kind(expectation: Expectation) -> Option<&'static str> {
    match expectation {
        Expectation::ShouldPass | Expectation::Robust => None,
        Expectation::ShouldFail(kind)
        | Expectation::ShouldFailUnderTso(kind)
        | Expectation::ShouldFailUnderC11(kind) => {
            Some(kind.map_or(test_support::ANY_KIND, ErrorKind::as_str))
        }
    }
}

/// The kind a run searches for: the one a should-fail test names, where its run must
/// fail (not a TSO-only failure's run under SC, which must pass).
pub fn target(expectation: Expectation, model: MemoryModel) -> Option<ErrorKind> {
    match (expectation, model) {
        (Expectation::ShouldFail(kind), _) => kind,
        (Expectation::ShouldFailUnderTso(kind), MemoryModel::Tso | MemoryModel::C11) => kind,
        (Expectation::ShouldFailUnderC11(kind), MemoryModel::C11) => kind,
        _ => None,
    }
}

/// Judges one run. `sc` is the SC re-run of a TSO failure, `x86` the re-runs of a C11
/// failure.
pub fn judge(
    expectation: Expectation,
    model: MemoryModel,
    outcome: &RunReport,
    sc: Option<&ScRerun>,
    x86: Option<&X86Rerun>,
) -> Judgement {
    let found_kind = outcome.error.as_ref().map(|f| f.kind);
    let classification = sc.map(|s| s.classification);
    let verdict = |status, finding| Judgement {
        status,
        expectation: Some(expectation),
        finding,
        found_kind,
        classification,
        x86: x86.map(|x| x.classification),
        other_kinds: outcome.other_kinds.clone(),
    };
    // Under SC a TSO-only failure is a test that must pass.
    // A robustness test's run is the robustness check: a violation is its failure.
    let effective = match (expectation, model) {
        (Expectation::ShouldFailUnderTso(_), MemoryModel::Sc) => Expectation::ShouldPass,
        // C11 allows every x86 behaviour (x86 implements C11): it fails there too.
        (Expectation::ShouldFailUnderTso(kind), MemoryModel::C11) => Expectation::ShouldFail(kind),
        // On x86 (and so under SC) a C11-only failure must pass.
        (Expectation::ShouldFailUnderC11(_), MemoryModel::Tso | MemoryModel::Sc) => {
            Expectation::ShouldPass
        }
        (Expectation::Robust, _) => Expectation::ShouldPass,
        _ => expectation,
    };
    let kind_matches = |wanted: Option<ErrorKind>| match (wanted, found_kind) {
        (Some(wanted), Some(found)) => wanted == found,
        _ => true,
    };
    match (outcome.verdict, effective) {
        (Verdict::Inconclusive, _) => verdict(Status::Inconclusive, Finding::Inconclusive),
        (Verdict::Error, _) => verdict(Status::Failed, Finding::NotChecked),
        (Verdict::Pass, Expectation::ShouldPass) => verdict(Status::Passed, Finding::Passed),
        (Verdict::Fail, Expectation::ShouldPass | Expectation::Robust) => {
            verdict(Status::Failed, Finding::UnexpectedFailure)
        }
        (Verdict::Pass, _) => verdict(Status::Failed, Finding::UnexpectedPass),
        (Verdict::Fail, Expectation::ShouldFail(kind)) => {
            if kind_matches(kind) {
                verdict(Status::Passed, Finding::FailedAsExpected)
            } else {
                verdict(Status::Failed, Finding::WrongKind)
            }
        }
        (Verdict::Fail, Expectation::ShouldFailUnderTso(kind)) => {
            if !kind_matches(kind) {
                return verdict(Status::Failed, Finding::WrongKind);
            }
            match classification {
                Some(ScClassification::NeedsTso) => {
                    verdict(Status::Passed, Finding::FailedAsExpected)
                }
                Some(ScClassification::FailsUnderSc) => {
                    verdict(Status::Failed, Finding::FailsUnderSc)
                }
                Some(ScClassification::Unknown) | None => {
                    verdict(Status::Inconclusive, Finding::ScUnknown)
                }
            }
        }
        (Verdict::Fail, Expectation::ShouldFailUnderC11(kind)) => {
            if !kind_matches(kind) {
                return verdict(Status::Failed, Finding::WrongKind);
            }
            if found_kind == Some(ErrorKind::DataRace) {
                // Races are looked for on the program's interleavings, the same under
                // every model: one is never a C11-only bug (and is not re-run).
                return verdict(Status::Failed, Finding::FailsOnX86);
            }
            match x86.map(|x| x.classification) {
                Some(X86Classification::NeedsC11) => {
                    verdict(Status::Passed, Finding::FailedAsExpected)
                }
                Some(X86Classification::NeedsTso | X86Classification::FailsUnderSc) => {
                    verdict(Status::Failed, Finding::FailsOnX86)
                }
                Some(X86Classification::Unknown) | None => {
                    verdict(Status::Inconclusive, Finding::X86Unknown)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(verdict: Verdict, kind: Option<ErrorKind>) -> RunReport {
        let mut outcome = RunReport::tool_error(ErrorKind::Assertion, String::new());
        outcome.verdict = verdict;
        outcome.error = kind.map(|kind| crate::run_report::RunError {
            kind,
            message: String::new(),
            location: None,
        });
        outcome
    }

    fn sc(classification: ScClassification) -> ScRerun {
        ScRerun {
            classification,
            outcome: outcome(Verdict::Pass, None),
        }
    }

    #[test]
    fn fails_under_tso_needs_a_tso_failure_and_an_sc_pass() {
        let tso_only = Expectation::ShouldFailUnderTso(Some(ErrorKind::Assertion));
        let failed = outcome(Verdict::Fail, Some(ErrorKind::Assertion));
        let judged =
            |o: &RunReport, model, s: Option<ScRerun>| judge(tso_only, model, o, s.as_ref(), None);
        let j = judged(
            &failed,
            MemoryModel::Tso,
            Some(sc(ScClassification::NeedsTso)),
        );
        assert_eq!(
            (j.status, j.finding),
            (Status::Passed, Finding::FailedAsExpected)
        );
        let j = judged(
            &failed,
            MemoryModel::Tso,
            Some(sc(ScClassification::FailsUnderSc)),
        );
        assert_eq!(
            (j.status, j.finding),
            (Status::Failed, Finding::FailsUnderSc)
        );
        let j = judged(
            &failed,
            MemoryModel::Tso,
            Some(sc(ScClassification::Unknown)),
        );
        assert_eq!(j.status, Status::Inconclusive);
        let j = judged(&outcome(Verdict::Pass, None), MemoryModel::Tso, None);
        assert_eq!(
            (j.status, j.finding),
            (Status::Failed, Finding::UnexpectedPass)
        );
        let j = judged(
            &outcome(Verdict::Fail, Some(ErrorKind::Deadlock)),
            MemoryModel::Tso,
            Some(sc(ScClassification::NeedsTso)),
        );
        assert_eq!((j.status, j.finding), (Status::Failed, Finding::WrongKind));
        // Under SC it must pass.
        let j = judged(&outcome(Verdict::Pass, None), MemoryModel::Sc, None);
        assert_eq!((j.status, j.finding), (Status::Passed, Finding::Passed));
        let j = judged(&failed, MemoryModel::Sc, None);
        assert_eq!(
            (j.status, j.finding),
            (Status::Failed, Finding::UnexpectedFailure)
        );
    }

    fn x86(tso: Verdict, sc: Option<Verdict>) -> X86Rerun {
        X86Rerun::classify(outcome(tso, None), sc.map(|v| outcome(v, None)))
    }

    #[test]
    fn fails_under_c11_needs_a_c11_failure_and_a_tso_pass() {
        let c11_only = Expectation::ShouldFailUnderC11(Some(ErrorKind::Assertion));
        let failed = outcome(Verdict::Fail, Some(ErrorKind::Assertion));
        let judged = |o: &RunReport, model, x: Option<X86Rerun>| {
            let j = judge(c11_only, model, o, None, x.as_ref());
            (j.status, j.finding)
        };
        let c11 = MemoryModel::C11;
        assert_eq!(
            judged(&failed, c11, Some(x86(Verdict::Pass, None))),
            (Status::Passed, Finding::FailedAsExpected)
        );
        for x86_fails in [
            x86(Verdict::Fail, Some(Verdict::Pass)),
            x86(Verdict::Fail, Some(Verdict::Fail)),
        ] {
            assert_eq!(
                judged(&failed, c11, Some(x86_fails)),
                (Status::Failed, Finding::FailsOnX86)
            );
        }
        assert_eq!(
            judged(&failed, c11, Some(x86(Verdict::Inconclusive, None))),
            (Status::Inconclusive, Finding::X86Unknown)
        );
        assert_eq!(
            judged(&failed, c11, None),
            (Status::Inconclusive, Finding::X86Unknown),
            "never a pass without the x86 re-runs"
        );
        assert_eq!(
            judged(&outcome(Verdict::Pass, None), c11, None),
            (Status::Failed, Finding::UnexpectedPass)
        );
        let deadlock = outcome(Verdict::Fail, Some(ErrorKind::Deadlock));
        assert_eq!(
            judged(&deadlock, c11, Some(x86(Verdict::Pass, None))),
            (Status::Failed, Finding::WrongKind)
        );
        assert_eq!(target(c11_only, c11), Some(ErrorKind::Assertion));
        let race = outcome(Verdict::Fail, Some(ErrorKind::DataRace));
        let any_c11 = Expectation::ShouldFailUnderC11(None);
        let j = judge(any_c11, c11, &race, None, None);
        assert_eq!((j.status, j.finding), (Status::Failed, Finding::FailsOnX86));
        // On x86 and under SC it must pass.
        for model in [MemoryModel::Tso, MemoryModel::Sc] {
            assert_eq!(
                judged(&outcome(Verdict::Pass, None), model, None),
                (Status::Passed, Finding::Passed)
            );
            assert_eq!(
                judged(&failed, model, None),
                (Status::Failed, Finding::UnexpectedFailure)
            );
            assert_eq!(target(c11_only, model), None);
        }
    }

    #[test]
    fn should_fail_judges_kind() {
        let failed = outcome(Verdict::Fail, Some(ErrorKind::Assertion));
        let j = judge(
            Expectation::ShouldFail(None),
            MemoryModel::Tso,
            &failed,
            None,
            None,
        );
        assert_eq!(j.status, Status::Passed);
        let j = judge(
            Expectation::ShouldFail(Some(ErrorKind::Deadlock)),
            MemoryModel::Tso,
            &failed,
            None,
            None,
        );
        assert_eq!(
            (j.status, j.finding, j.found_kind),
            (
                Status::Failed,
                Finding::WrongKind,
                Some(ErrorKind::Assertion)
            )
        );
        let j = judge(
            Expectation::ShouldPass,
            MemoryModel::Tso,
            &outcome(Verdict::Inconclusive, None),
            None,
            None,
        );
        assert_eq!(j.status, Status::Inconclusive);
    }
}
