//! The counterexample trace, one step per line:
//! `  T1  peterson.c:28   load flag → 0`, with the runtime's notes (store buffers,
//! forced flushes) indented under the step and the program's output interleaved.

use std::fmt::Write as _;

use crate::render::paths::short_name;
use tso_engine::TraceStep;

fn place(step: &TraceStep) -> String {
    match &step.location {
        Some(loc) => format!("{}:{}", short_name(&loc.file), loc.line),
        None => "-".to_owned(),
    }
}

pub fn render(steps: &[TraceStep]) -> String {
    let width = steps
        .iter()
        .map(|s| place(s).chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for step in steps {
        let thread = format!("T{}", step.thread);
        let _ = writeln!(
            out,
            "  {thread:<3} {:<width$}   {}",
            place(step),
            step.action
        );
        for note in &step.notes {
            let _ = writeln!(out, "        {note}");
        }
        // A printing step's action already quotes what it printed.
        if step.action.is_empty() {
            for line in step.output.lines() {
                let _ = writeln!(out, "        | {line}");
            }
        }
    }
    out
}
