//! Quoting the offending source line under an error, rustc style.

use std::fmt::Write as _;

use crate::render::paths::display_path;
use tso_engine::Location;

/// `  --> file:line:col`, then the line with a gutter and a caret under the column.
/// Only the arrow when the file cannot be read.
pub fn snippet(location: &Location) -> String {
    let mut out = String::new();
    let shown = display_path(&location.file);
    let pad = " ".repeat(location.line.to_string().len());
    if location.column > 0 {
        let _ = writeln!(
            out,
            "{pad}--> {shown}:{}:{}",
            location.line, location.column
        );
    } else {
        let _ = writeln!(out, "{pad}--> {shown}:{}", location.line);
    }
    let Some(text) = read_line(&location.file, location.line) else {
        return out;
    };
    let number = location.line.to_string();
    let _ = writeln!(out, "{pad} |");
    let _ = writeln!(out, "{number} | {}", text.trim_end());
    if location.column > 0 {
        // Tabs before the column keep their width so the caret lines up.
        let lead: String = text
            .chars()
            .take(location.column as usize - 1)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        let _ = writeln!(out, "{pad} | {lead}^");
    }
    out
}

fn read_line(file: &str, line: u32) -> Option<String> {
    source_lines(file, line, 1)
}

/// Up to `count` lines of `file` from line `line` (1-based), joined with newlines;
/// None when the file cannot be read or has no such line.
pub fn source_lines(file: &str, line: u32, count: usize) -> Option<String> {
    if line == 0 {
        return None;
    }
    let text = std::fs::read_to_string(file).ok()?;
    let lines: Vec<&str> = text.lines().skip(line as usize - 1).take(count).collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}
