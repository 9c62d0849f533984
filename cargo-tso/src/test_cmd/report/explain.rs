//! The text that explains a test's judgement, shared by the human, JSON (`stdout`)
//! and JUnit reporters: the error, its counterexample and what SC (or, for a C11
//! failure, x86) says.

use crate::render::{failure, figures};
use crate::test_cmd::expect::{self, Finding};
use crate::test_cmd::runner::TestResult;

/// `` (`deadlock`)`` for a should-fail test naming a kind, else empty.
fn wanted_kind(result: &TestResult) -> String {
    match result.judgement.expectation.and_then(expect::expected_kind) {
        Some(kind) if kind != test_support::ANY_KIND => format!(" (`{kind}`)"),
        _ => String::new(),
    }
}

/// The explanation of a result; empty for a plain pass or an ignored test.
pub fn explanation(result: &TestResult) -> String {
    let mut text = judged_explanation(result);
    if result.outcome.is_some() && !text.is_empty() {
        // What the run adds: the observation behind a robustness violation, fences.
        if let Some(note) = &result.note {
            text.push_str(note);
        }
    }
    text
}

fn judged_explanation(result: &TestResult) -> String {
    let judgement = &result.judgement;
    if !judgement.has_explanation() {
        return String::new();
    }
    let Some(outcome) = &result.outcome else {
        // Nothing was checked: the note says why.
        let mut text = result.note.clone().unwrap_or_default();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        return text;
    };
    let details = || failure::details(outcome, result.sc.as_ref(), result.x86.as_ref(), true);
    let figures_line = || format!("{}\n", figures::test_line(&outcome.figures));
    match judgement.finding {
        Finding::Passed | Finding::Ignored => String::new(),
        Finding::FailedAsExpected if !judgement.other_kinds.is_empty() => format!(
            "{}\nalso met on the way (each ends its path): {}\n",
            details().trim_end(),
            kinds(&judgement.other_kinds)
        ),
        Finding::FailedAsExpected | Finding::UnexpectedFailure => details(),
        Finding::Inconclusive => format!("{}{}", details(), figures_line()),
        Finding::NotChecked => format!("the test could not be checked:\n{}", details()),
        Finding::UnexpectedPass => {
            let under = match judgement.expectation {
                Some(test_support::Expectation::ShouldFailUnderTso(_)) => " under x86-TSO",
                Some(test_support::Expectation::ShouldFailUnderC11(_)) => " under C11",
                _ => "",
            };
            format!(
                "expected failure{}{under} but passed: no error is reachable\n{}",
                wanted_kind(result),
                figures_line()
            )
        }
        Finding::WrongKind if !judgement.other_kinds.is_empty() => format!(
            "expected failure `{}`, but it is not reachable: the search went on past the \
             errors of other kinds it met, each of which ends its path, and found none; \
             it met {}. The shortest of them:\n{}",
            judgement
                .expectation
                .and_then(expect::expected_kind)
                .unwrap_or(test_support::ANY_KIND),
            kinds(&judgement.other_kinds),
            details()
        ),
        Finding::WrongKind => format!(
            "expected failure `{}`, but the test failed with `{}`:\n{}",
            judgement
                .expectation
                .and_then(expect::expected_kind)
                .unwrap_or(test_support::ANY_KIND),
            judgement.found_kind.map_or("?", |k| k.as_str()),
            details()
        ),
        Finding::FailsUnderSc => format!(
            "declared to fail only under TSO, but it fails under sequential consistency too: \
             not a TSO-only bug\n{}",
            details()
        ),
        Finding::ScUnknown => format!(
            "declared to fail only under TSO; it fails under x86-TSO, but the SC re-run gave \
             no verdict\n{}",
            details()
        ),
        Finding::FailsOnX86 if judgement.found_kind == Some(tso_engine::ErrorKind::DataRace) => {
            format!(
                "declared to fail only under C11, but a data race is one under every model \
                 (races are looked for on the program's interleavings): not a bug that needs \
                 C11 weakness\n{}",
                details()
            )
        }
        Finding::FailsOnX86 => format!(
            "declared to fail only under C11, but it fails on x86 (under x86-TSO) too: not a \
             bug that needs C11 weakness\n{}",
            details()
        ),
        Finding::X86Unknown => format!(
            "declared to fail only under C11; it fails under C11, but the x86 re-runs gave \
             no verdict\n{}",
            details()
        ),
    }
}

/// `` `use-after-free`, `assertion` ``.
fn kinds(kinds: &[tso_engine::ErrorKind]) -> String {
    kinds
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
