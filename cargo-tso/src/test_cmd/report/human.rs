//! libtest's human formats: `pretty` (a line per test) and `terse` (a character per
//! test); both end with the failures and libtest's summary line.

use std::fmt::Write as _;
use std::io::Write;

use crate::render::figures;
use crate::test_cmd::catalog::TestCase;
use crate::test_cmd::expect::Status;
use crate::test_cmd::report::{Paint, Reporter, SuiteInfo, Summary};
use crate::test_cmd::runner::TestResult;
use crate::test_cmd::sweep::{self, SweepTable};

pub struct Human {
    pub terse: bool,
    pub verbose: bool,
    pub paint: Paint,
    /// Characters printed on the current terse line.
    column: usize,
}

impl Human {
    pub fn new(terse: bool, verbose: bool, paint: Paint) -> Human {
        Human {
            terse,
            verbose,
            paint,
            column: 0,
        }
    }
}

fn emit(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

const TERSE_WIDTH: usize = 88;

/// Whether the terse line is empty or full.
#[allow(clippy::manual_is_multiple_of)] // is_multiple_of needs Rust 1.87; MSRV is 1.80
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
            let mark = match result.status {
                Status::Passed => ".".to_owned(),
                Status::Failed => self.paint.red("F"),
                Status::Ignored => self.paint.yellow("i"),
                Status::Inconclusive => self.paint.yellow("?"),
            };
            self.column += 1;
            let wrap = if at_line_start(self.column) { "\n" } else { "" };
            emit(&format!("{mark}{wrap}"));
            return;
        }
        let mut line = format!(
            "test {} ... {}",
            result.name,
            self.paint.status(result.status)
        );
        if let Some(outcome) = &result.outcome {
            let _ = write!(line, " ({})", figures::short(&outcome.figures));
        }
        line.push('\n');
        if self.verbose {
            if let Some(outcome) = &result.outcome {
                let _ = writeln!(line, "    {}", figures::line(&outcome.figures));
            }
            let _ = writeln!(
                line,
                "    file: {}",
                crate::render::paths::display_path(&case.unit.path.display().to_string())
            );
        }
        emit(&line);
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
        // Expected failures pass; their counterexamples are still worth reading.
        let expected: Vec<&TestResult> = results
            .iter()
            .filter(|r| r.status == Status::Passed && !r.message.is_empty())
            .collect();
        if !expected.is_empty() && !self.terse {
            text.push_str("\nexpected failures:\n\n");
            for result in &expected {
                let _ = writeln!(text, "---- {} (failed as expected) ----", result.name);
                text.push_str(&result.message);
                text.push('\n');
            }
        }
        let failures: Vec<&TestResult> = results.iter().filter(|r| r.status.is_failure()).collect();
        if !failures.is_empty() {
            text.push_str("\nfailures:\n\n");
            for failure in &failures {
                let _ = writeln!(text, "---- {} ----", failure.name);
                text.push_str(&failure.message);
                text.push('\n');
            }
            text.push_str("\nfailures:\n");
            for failure in &failures {
                let _ = writeln!(text, "    {}", failure.name);
            }
        }
        if summary.inconclusive > 0 {
            let _ = writeln!(
                text,
                "\nnote: {} inconclusive (a limit stopped the search; counted as failed)",
                summary.inconclusive
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
