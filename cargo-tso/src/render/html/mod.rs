//! `--html`: a counterexample as one self-contained page (inline CSS, SVG and a few
//! lines of script; nothing fetched). The picture is a sequence diagram with a lane
//! per thread and, under TSO, one per store buffer and one for memory; the trace text
//! sits beside it, each line linked to its step (`#step-N` ↔ `#line-N`).

mod lanes;
mod svg;

use std::fmt::Write as _;
use std::path::Path;

use tso_runtime::instrument::SourcePoint;

use crate::fences::FenceSuggestion;
use crate::render::failure;
use crate::render::paths::short_name;
use crate::run_report::RunReport;
use lanes::Lanes;

/// Everything one page shows.
pub struct Picture<'a> {
    /// The test's or the program's name.
    pub title: &'a str,
    pub report: &'a RunReport,
    /// What the re-runs under other models say (a TSO failure's SC re-run, a C11
    /// failure's x86 re-runs).
    pub classification: Option<&'a str>,
    /// Draw store buffers and memory (the run was under TSO).
    pub tso: bool,
    /// Suggested fences, each after the store at its point.
    pub fences: &'a [SourcePoint],
    /// Text shown under the picture (the fence suggestion as the terminal prints it).
    pub note: Option<&'a str>,
}

/// The points of a verified suggestion, to draw (an unverified one is only described
/// in the note).
pub fn verified_fences(suggestion: Option<&FenceSuggestion>) -> Vec<SourcePoint> {
    suggestion
        .filter(|s| s.verified())
        .map(|s| s.fences.iter().map(|f| f.after.clone()).collect())
        .unwrap_or_default()
}

/// Writes the page to `path`, creating its directory.
pub fn write(path: &Path, picture: &Picture<'_>) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, page(picture))
}

pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// `peterson.c:10`, or `-` without a location.
fn place(step: &tso_engine::TraceStep) -> String {
    match &step.location {
        Some(loc) => format!("{}:{}", short_name(&loc.file), loc.line),
        None => "-".to_owned(),
    }
}

/// Whether the step is a store at a suggested fence's point.
fn fenced_after(step: &tso_engine::TraceStep, fences: &[SourcePoint]) -> bool {
    step.location.as_ref().is_some_and(|loc| {
        fences
            .iter()
            .any(|f| f.line == loc.line && short_name(&f.file) == short_name(&loc.file))
    })
}

const STYLE: &str = r#"
body { font-family: system-ui, sans-serif; margin: 1em 1.5em; color: #1d1d1f; }
h1 { font-size: 1.2em; margin: 0 0 .4em; }
pre { font-family: ui-monospace, monospace; font-size: 12px; }
.error { background: #fff1f0; border-left: 4px solid #d4380d; padding: .5em .8em; }
.layout { display: flex; gap: 1.5em; align-items: flex-start; }
.diagram { flex: 0 1 auto; min-width: 0; overflow-x: auto; }
.trace { flex: none; font-family: ui-monospace, monospace; font-size: 12px; }
.trace a { color: inherit; text-decoration: none; }
.line { white-space: pre; padding: 0 4px; border-radius: 3px; box-sizing: border-box; line-height: 15px; overflow: hidden; }
.line .note { color: #666; }
.line.stale { background: #fff7e6; }
.line.failing { background: #fff1f0; }
.line.hot, .line:target { background: #e6f4ff; outline: 1px solid #1677ff; }
.legend { font-size: 12px; color: #444; margin: .3em 0 .8em; }
.legend span { margin-right: 1.2em; }
svg text { font-family: ui-monospace, monospace; font-size: 11px; }
svg .lane-title { font-weight: bold; font-size: 12px; }
svg .lifeline { stroke: #bbb; stroke-dasharray: 4 3; }
svg .box { fill: #f5f5f5; stroke: #8c8c8c; }
svg .step.load .box { fill: #e6f4ff; stroke: #1677ff; }
svg .step.store .box { fill: #f6ffed; stroke: #389e0d; }
svg .step.stale .box { fill: #fff7e6; stroke: #d46b08; stroke-width: 2; }
svg .step.failing .box { fill: #fff1f0; stroke: #cf1322; stroke-width: 2.5; }
svg .step.hot .box, svg .step:target .box { stroke: #1677ff; stroke-width: 3; }
svg .entry { stroke: #389e0d; stroke-width: 3; }
svg .entry.marked { stroke-dasharray: 5 3; }
svg .arrow { stroke: #389e0d; fill: none; marker-end: url(#head); }
svg .flush { stroke: #531dab; fill: none; marker-end: url(#head-flush); }
svg .flush.marked { stroke-dasharray: 5 3; }
svg .stale-link { stroke: #d46b08; stroke-dasharray: 3 2; fill: none; }
svg .fence { stroke: #fa8c16; stroke-width: 4; }
svg .fence-label { fill: #ad4e00; font-weight: bold; }
svg .error-mark { fill: #cf1322; font-weight: bold; }
"#;

/// Hovering a trace line lights its step and the other way round; on load, each line
/// records whether its step was drawn (`data-drawn`), which the browser test reads.
const SCRIPT: &str = r#"
(function () {
  var lines = document.querySelectorAll('.line[data-step]');
  var drawn = 0;
  lines.forEach(function (line) {
    var step = document.getElementById('step-' + line.dataset.step);
    var box = step && step.getBBox ? step.getBBox() : null;
    var ok = !!(box && box.width > 0 && box.height > 0);
    line.dataset.drawn = ok ? 'yes' : 'no';
    if (ok) drawn++;
    if (!step) return;
    var on = function () { line.classList.add('hot'); step.classList.add('hot'); };
    var off = function () { line.classList.remove('hot'); step.classList.remove('hot'); };
    line.addEventListener('mouseenter', on);
    line.addEventListener('mouseleave', off);
    step.addEventListener('mouseenter', on);
    step.addEventListener('mouseleave', off);
  });
  document.body.dataset.drawnSteps = String(drawn);
})();
"#;

/// The page, as HTML text.
pub fn page(picture: &Picture<'_>) -> String {
    let report = picture.report;
    let steps = &report.trace;
    let lanes = Lanes::of(steps);
    let mut out = String::new();
    let title = escape(picture.title);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{title}: counterexample</title>\n<style>{STYLE}</style>\n</head>\n\
         <body data-steps=\"{}\">\n<h1>{title}</h1>\n",
        steps.len()
    );
    let error = failure::error_block(report);
    if !error.is_empty() {
        let _ = writeln!(
            out,
            "<pre class=\"error\">{}</pre>",
            escape(error.trim_end())
        );
    }
    if let Some(classification) = picture.classification {
        let _ = writeln!(
            out,
            "<p class=\"classification\">{}</p>",
            escape(classification)
        );
    }
    if steps.is_empty() {
        let why = if report.verdict == tso_engine::Verdict::Pass {
            "no error is reachable"
        } else {
            "the run gave no trace"
        };
        let _ = writeln!(out, "<p>No counterexample: {why}.</p>");
    } else {
        out.push_str(LEGEND);
        out.push_str("<div class=\"layout\">\n<div class=\"diagram\">\n");
        out.push_str(&svg::diagram(steps, &lanes, picture));
        let heights = svg::row_heights(steps, &lanes, picture);
        let _ = write!(
            out,
            "</div>\n<div class=\"trace\" style=\"padding-top: {:.0}px\">",
            svg::HEADER
        );
        out.push_str(&trace_lines(steps, &lanes, &heights));
        out.push_str("</div>\n</div>\n");
    }
    if let Some(note) = picture.note.filter(|n| !n.is_empty()) {
        let _ = writeln!(
            out,
            "<pre class=\"fences\">{}</pre>",
            escape(note.trim_end())
        );
    }
    if !report.output.is_empty() {
        let _ = writeln!(
            out,
            "<pre class=\"output\">{}</pre>",
            escape(failure::output_block(&report.output).trim_end())
        );
    }
    let _ = write!(out, "<script>{SCRIPT}</script>\n</body>\n</html>\n");
    out
}

const LEGEND: &str =
    "<div class=\"legend\"><span>green bar: a store waiting in its thread's buffer</span>\
<span>purple arrow: a flush to memory (dashed: counts as written, order still open)</span>\
<span>orange: a stale read</span><span>red: the failing step</span>\
<span>thick orange line: a suggested fence</span></div>\n";

/// How many lines a step takes in the trace text.
fn text_lines(step: &tso_engine::TraceStep) -> usize {
    let output = if step.action.is_empty() {
        step.output.lines().count()
    } else {
        0
    };
    1 + step.notes.len() + output
}

/// The trace text, one linked block per step: `T1  peterson.c:10   store …` and its
/// notes and output; each block as high as its step's row in the picture.
fn trace_lines(steps: &[tso_engine::TraceStep], lanes: &Lanes, heights: &[f64]) -> String {
    let width = steps
        .iter()
        .map(|s| place(s).chars().count())
        .max()
        .unwrap_or(0);
    let last = steps.len().saturating_sub(1);
    let mut out = String::new();
    for (i, step) in steps.iter().enumerate() {
        let mut class = String::from("line");
        if lanes.rows[i].stale.is_some() {
            class.push_str(" stale");
        }
        if i == last {
            class.push_str(" failing");
        }
        let head = format!(
            "{:<3} {:<width$}   {}",
            format!("T{}", step.thread),
            place(step),
            step.action
        );
        let _ = write!(
            out,
            "<div class=\"{class}\" id=\"line-{i}\" data-step=\"{i}\" style=\"height: {:.0}px\"><a href=\"#step-{i}\">{}</a>",
            heights[i],
            escape(&head)
        );
        for note in &step.notes {
            let _ = write!(out, "\n<span class=\"note\">      {}</span>", escape(note));
        }
        if step.action.is_empty() {
            for line in step.output.lines() {
                let _ = write!(
                    out,
                    "\n<span class=\"note\">      | {}</span>",
                    escape(line)
                );
            }
        }
        out.push_str("</div>\n");
    }
    out
}

#[cfg(test)]
mod snapshots;
