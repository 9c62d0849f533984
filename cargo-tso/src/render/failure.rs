//! The explanation of a non-passing run: the error and its source line, the trace,
//! the output, and what SC says about a TSO failure (x86 about a C11 failure).

use std::fmt::Write as _;

use crate::render::{source, trace};
use crate::run_report::{Property, RunReport, ScRerun, X86Rerun};

/// `error[assertion]: message` and the quoted source line.
pub fn error_block(outcome: &RunReport) -> String {
    let mut out = String::new();
    if let Some(failure) = &outcome.error {
        let _ = writeln!(out, "error[{}]: {}", failure.kind, failure.message);
        if let Some(location) = &failure.location {
            out.push_str(&source::snippet(location));
        }
    }
    if let Some(reason) = &outcome.inconclusive_reason {
        let _ = writeln!(out, "inconclusive: {reason}");
        for line in &outcome.diagnosis {
            let _ = writeln!(out, "  = note: {line}");
        }
    }
    out.push_str(&cut_block(outcome));
    out
}

/// What a limit left open: `not established: data races (a limit stopped the race
/// search without store buffers)`.
pub fn cut_block(outcome: &RunReport) -> String {
    let Some(cut) = &outcome.cut else {
        return String::new();
    };
    let mut out = format!(
        "not established: {} (a limit stopped the {})\n",
        cut.list(),
        cut.phase.describe()
    );
    if outcome.verdict == tso_engine::Verdict::Fail
        && cut.not_established.contains(&Property::Races)
    {
        out.push_str("  = note: the races listed, if any, may not be all\n");
    }
    out
}

/// The program's output as an indented block under `output:`.
pub fn output_block(output: &str) -> String {
    let mut out = String::from("output:\n");
    for line in output.lines() {
        let _ = writeln!(out, "  | {line}");
    }
    out
}

/// Everything a person needs to follow a failure, in reading order.
pub fn details(
    outcome: &RunReport,
    sc: Option<&ScRerun>,
    x86: Option<&X86Rerun>,
    with_output: bool,
) -> String {
    let mut out = error_block(outcome);
    if !outcome.trace.is_empty() {
        out.push_str("trace:\n");
        out.push_str(&trace::render(&outcome.trace));
    }
    if with_output && !outcome.output.is_empty() {
        out.push_str(&output_block(&outcome.output));
    }
    if let Some(sc) = sc {
        let _ = writeln!(out, "{}", sc.classification.sentence());
    }
    if let Some(x86) = x86 {
        let _ = writeln!(out, "{}", x86.classification.sentence());
    }
    out
}

/// The data races found beside the verdict (`--races warn`), one `warning:` line each.
pub fn races_block(outcome: &RunReport) -> String {
    let mut text = String::new();
    for race in &outcome.races {
        let _ = writeln!(text, "warning: {}", race.message());
    }
    text
}
