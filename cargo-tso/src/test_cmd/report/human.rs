//! libtest's human formats: `pretty` (a line per test) and `terse` (a character per
//! test); both end with the failures and libtest's summary line.

use std::fmt::Write as _;
use std::io::Write;

use crate::render::{failure, figures};
use crate::test_cmd::catalog::TestCase;
use crate::test_cmd::expect::{Finding, Status};
use crate::test_cmd::report::explain::explanation;
use crate::test_cmd::report::{Paint, Reporter, SuiteInfo, Summary};
use crate::test_cmd::runner::TestResult;
use crate::test_cmd::sweep::{self, SweepTable};

pub struct Human {
    pub terse: bool,
    pub verbose: bool,
    /// `--show-output`: what passing tests printed, under "successes:".
    pub show_output: bool,
    pub paint: Paint,
    /// Characters printed on the current terse line.
    column: usize,
}

impl Human {
    pub fn new(terse: bool, verbose: bool, show_output: bool, paint: Paint) -> Human {
        Human {
            terse,
            verbose,
            show_output,
            paint,
            column: 0,
        }
    }
}

/// `(92 states, 0.00s)`, with `, -O2` when the test was compiled optimised.
fn figures_note(result: &TestResult, case: &TestCase) -> String {
    let mut note = String::new();
    if let Some(outcome) = &result.outcome {
        note = figures::short(&outcome.figures);
    }
    if case.unit.opt_level != "0" {
        if !note.is_empty() {
            note.push_str(", ");
        }
        let _ = write!(note, "-O{}", case.unit.opt_level);
    }
    if note.is_empty() {
        note
    } else {
        format!(" ({note})")
    }
}

fn emit(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// `title:` and the explanation of each result `shown` picks, headed `---- name (label) ----`.
fn explained_section(
    text: &mut String,
    results: &[TestResult],
    shown: impl Fn(&TestResult) -> bool,
    title: &str,
    label: &str,
) {
    let picked: Vec<&TestResult> = results.iter().filter(|r| shown(r)).collect();
    if picked.is_empty() {
        return;
    }
    let _ = write!(text, "\n{title}:\n\n");
    for result in picked {
        let _ = writeln!(text, "---- {} ({label}) ----", result.name);
        text.push_str(&explanation(result));
        text.push('\n');
    }
}

const TERSE_WIDTH: usize = 88;

/// Whether the terse line is empty or full.
#[allow(clippy::manual_is_multiple_of)] // is_multiple_of needs Rust 1.87; MSRV is 1.82
fn at_line_start(column: usize) -> bool {
    column % TERSE_WIDTH == 0
}

impl Reporter for Human {
    fn suite_started(&mut self, info: &SuiteInfo) {
        let plural = if info.count == 1 { "" } else { "s" };
        emit(&format!("\nrunning {} test{plural}\n", info.count));
    }

    fn test_finished(&mut self, result: &TestResult, case: &TestCase) {
        if self.terse {
            let mark = match result.judgement.status {
                Status::Passed => ".".to_owned(),
                Status::Failed => self.paint.red("F"),
                Status::Ignored => self.paint.yellow("i"),
                Status::Inconclusive | Status::InconclusiveAllowed => self.paint.yellow("?"),
            };
            self.column += 1;
            let wrap = if at_line_start(self.column) { "\n" } else { "" };
            emit(&format!("{mark}{wrap}"));
            return;
        }
        let mut line = format!(
            "test {} ... {}{}\n",
            result.name,
            self.paint.status(result.judgement.status),
            figures_note(result, case)
        );
        if self.verbose {
            if let Some(outcome) = &result.outcome {
                let _ = writeln!(line, "    {}", figures::test_line(&outcome.figures));
                let _ = writeln!(line, "    {}", figures::phases_line(&outcome.figures));
                let _ = writeln!(line, "    {}", figures::symmetry_line(&outcome.figures));
            }
            let _ = writeln!(
                line,
                "    file: {}",
                crate::render::paths::display_path(&case.unit.path.display().to_string())
            );
            if let Some(outcome) = &result.outcome {
                line.push_str(&crate::render::unmodelled_block(
                    &outcome.unmodelled,
                    "    ",
                ));
            }
        }
        emit(&line);
    }

    fn row_finished(&mut self, result: &TestResult, case: &TestCase) {
        if self.terse {
            return;
        }
        emit(&format!(
            "bound {} ... {}{}\n",
            result.name,
            sweep::verdict_cell(result),
            figures_note(result, case)
        ));
    }

    fn sweep(&mut self, tables: &[SweepTable<'_>]) {
        let mut text = String::new();
        if self.terse && !at_line_start(self.column) {
            text.push('\n');
            self.column = 0;
        }
        text.push('\n');
        for table in tables {
            text.push_str(&sweep::render(table));
            text.push('\n');
        }
        emit(&text);
    }

    fn suite_finished(&mut self, results: &[TestResult], summary: &Summary) {
        let mut text = String::new();
        if self.terse && !at_line_start(self.column) {
            text.push('\n');
        }
        if self.show_output {
            let outputs: Vec<(&str, &str)> = results
                .iter()
                .filter(|r| r.judgement.status == Status::Passed)
                .filter_map(|r| Some((r.name.as_str(), r.outcome.as_ref()?.output.as_str())))
                .filter(|(_, output)| !output.is_empty())
                .collect();
            if !outputs.is_empty() {
                text.push_str("\nsuccesses:\n\n");
                for (name, output) in outputs {
                    let _ = writeln!(text, "---- {name} stdout ----");
                    text.push_str(&failure::output_block(output));
                    text.push('\n');
                }
            }
        }
        // Races reported beside the verdicts (`--races warn`), whatever the verdict;
        // left out of the terse report, like the expected failures.
        let racy: Vec<&TestResult> = results
            .iter()
            .filter(|r| r.outcome.as_ref().is_some_and(|o| !o.races.is_empty()))
            .collect();
        if !racy.is_empty() && !self.terse {
            text.push_str(
                "
data races:

",
            );
            for result in &racy {
                let _ = writeln!(text, "---- {} ----", result.name);
                if let Some(outcome) = &result.outcome {
                    text.push_str(&failure::races_block(outcome));
                }
            }
        }
        if !self.terse {
            // Expected failures pass; their counterexamples are still worth reading.
            explained_section(
                &mut text,
                results,
                |r| r.judgement.finding == Finding::FailedAsExpected,
                "expected failures",
                "failed as expected",
            );
            // Allowed to be inconclusive: not failures, but what they reached is shown.
            explained_section(
                &mut text,
                results,
                |r| r.judgement.status == Status::InconclusiveAllowed,
                "inconclusive (allowed)",
                "inconclusive, allowed",
            );
        }
        let failures: Vec<&TestResult> = results
            .iter()
            .filter(|r| r.judgement.status.is_failure())
            .collect();
        if !failures.is_empty() {
            text.push_str("\nfailures:\n\n");
            for failure in &failures {
                let _ = writeln!(text, "---- {} ----", failure.name);
                text.push_str(&explanation(failure));
                text.push('\n');
            }
            text.push_str("\nfailures:\n");
            for failure in &failures {
                let _ = writeln!(text, "    {}", failure.name);
            }
        }
        if summary.not_run > 0 {
            let plural = if summary.not_run == 1 { "" } else { "s" };
            let why = match summary.interrupted {
                Some(signal) => format!(" or stopped: {signal} interrupted the run"),
                None => ": --fail-fast stopped the run after a failure".to_owned(),
            };
            let _ = writeln!(
                text,
                "\nnote: {} test{plural} not run{why}",
                summary.not_run
            );
        }
        let counted = summary.inconclusive - summary.inconclusive_allowed;
        if counted > 0 {
            let _ = writeln!(
                text,
                "\nnote: {counted} inconclusive (a limit stopped the search; counted as failed; \
                 --allow-inconclusive or build.rs `allow_inconclusive` allow it)",
            );
        }
        if summary.inconclusive_allowed > 0 {
            let _ = writeln!(
                text,
                "\nnote: {} inconclusive, allowed (a limit stopped the search; not counted as passed or failed)",
                summary.inconclusive_allowed
            );
        }
        let word = if summary.ok() {
            self.paint.green("ok")
        } else {
            self.paint.red("FAILED")
        };
        let _ = writeln!(
            text,
            "\ntest result: {word}. {} passed; {} failed; {} ignored; 0 measured; {} filtered out; finished in {:.2}s\n",
            summary.passed,
            summary.failed,
            summary.ignored,
            summary.filtered_out,
            summary.elapsed.as_secs_f64()
        );
        emit(&text);
    }
}
