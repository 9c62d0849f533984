//! The sequence diagram: lanes left to right (`T0`, `T0 buffer`, `T1`, …, `memory`),
//! one row per trace step, top to bottom.

use std::fmt::Write as _;

use tso_engine::TraceStep;

use super::lanes::{Action, Lanes};
use super::{escape, fenced_after, place, Picture};

const GUTTER: f64 = 34.0;
/// The trace text's line height (its CSS says the same).
pub const TEXT_LINE_H: f64 = 15.0;
const THREAD_W: f64 = 230.0;
pub const HEADER: f64 = 40.0;
const BOX_H: f64 = 28.0;
const ROW_MIN: f64 = 38.0;
const FLUSH_GAP: f64 = 14.0;
const FENCE_H: f64 = 16.0;
const MEMORY_W: f64 = 170.0;
/// Room for an entry's label right of the bars.
const LABEL_W: f64 = 150.0;
const SLOT_W: f64 = 14.0;
/// Monospace 11 px: about this many pixels a character.
const CHAR_W: f64 = 6.7;

struct Geometry {
    /// Left edge of each thread's lane, in `lanes.threads` order.
    thread_x: Vec<f64>,
    /// Left edge of each thread's buffer lane (under TSO, for a thread that buffers
    /// a store; the others would be empty).
    buffer_x: Vec<Option<f64>>,
    buffer_w: f64,
    memory_x: f64,
    width: f64,
    /// Top of each row, and the bottom of the last one.
    row_y: Vec<f64>,
}

impl Geometry {
    fn new(steps: &[TraceStep], lanes: &Lanes, picture: &Picture<'_>) -> Geometry {
        let buffer_w = if picture.tso {
            24.0 + lanes.slots() as f64 * SLOT_W + LABEL_W
        } else {
            0.0
        };
        let mut x = GUTTER;
        let (mut thread_x, mut buffer_x) = (Vec::new(), Vec::new());
        for &t in &lanes.threads {
            thread_x.push(x);
            x += THREAD_W;
            if picture.tso && lanes.entries.iter().any(|e| e.thread == t) {
                buffer_x.push(Some(x));
                x += buffer_w;
            } else {
                buffer_x.push(None);
            }
        }
        let memory_x = x;
        let width = x + if picture.tso { MEMORY_W } else { 0.0 } + 10.0;
        let mut row_y = Vec::with_capacity(steps.len() + 1);
        let mut y = HEADER;
        for h in row_heights(steps, lanes, picture) {
            row_y.push(y);
            y += h;
        }
        row_y.push(y);
        Geometry {
            thread_x,
            buffer_x,
            buffer_w,
            memory_x,
            width,
            row_y,
        }
    }

    fn lane(&self, lanes: &Lanes, thread: u32) -> usize {
        lanes.threads.iter().position(|&t| t == thread).unwrap_or(0)
    }

    /// The x of an entry's bar in its buffer lane.
    fn bar_x(&self, lanes: &Lanes, entry: usize) -> f64 {
        let e = &lanes.entries[entry];
        self.buffer_left(lanes, e.thread) + 14.0 + e.slot as f64 * SLOT_W
    }

    /// The left edge of `thread`'s buffer lane, which every thread with an entry has.
    fn buffer_left(&self, lanes: &Lanes, thread: u32) -> f64 {
        self.buffer_x[self.lane(lanes, thread)].unwrap_or(self.memory_x)
    }

    fn mid(&self, row: usize) -> f64 {
        self.row_y[row] + 4.0 + BOX_H / 2.0
    }
}

/// The height of each step's row: room for its box, its flush arrows, a fence mark,
/// and its lines in the trace text beside the picture (which has rows of the same
/// height, so a step and its text sit side by side).
pub fn row_heights(steps: &[TraceStep], lanes: &Lanes, picture: &Picture<'_>) -> Vec<f64> {
    steps
        .iter()
        .zip(&lanes.rows)
        .map(|(step, row)| {
            let flushes = 10.0 + FLUSH_GAP * row.flushes.len() as f64 + 6.0;
            let mut h = ROW_MIN.max(flushes);
            if fences_here(step, &row.action, picture) {
                h += FENCE_H;
            }
            h.max(super::text_lines(step) as f64 * TEXT_LINE_H + 6.0)
        })
        .collect()
}

fn fences_here(step: &TraceStep, action: &Action, picture: &Picture<'_>) -> bool {
    matches!(action, Action::Store { .. }) && fenced_after(step, picture.fences)
}

/// Cuts `text` to what fits in `width` pixels, with an ellipsis.
fn fit(text: &str, width: f64) -> String {
    let max = (width / CHAR_W) as usize;
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

pub fn diagram(steps: &[TraceStep], lanes: &Lanes, picture: &Picture<'_>) -> String {
    let g = Geometry::new(steps, lanes, picture);
    let bottom = g.row_y[steps.len()];
    let height = bottom + 34.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg id=\"diagram\" width=\"{:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {:.0} {height:.0}\" role=\"img\" aria-label=\"sequence diagram of the counterexample\">",
        g.width, g.width
    );
    out.push_str(
        "<defs><marker id=\"head\" viewBox=\"0 0 8 8\" refX=\"7\" refY=\"4\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L8,4 L0,8 z\" fill=\"#389e0d\"/></marker>\
<marker id=\"head-flush\" viewBox=\"0 0 8 8\" refX=\"7\" refY=\"4\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L8,4 L0,8 z\" fill=\"#531dab\"/></marker></defs>\n",
    );
    // Lane titles and lifelines.
    let lane = |out: &mut String, x: f64, w: f64, title: &str, id: String| {
        let c = x + w / 2.0;
        let _ = writeln!(
            out,
            "<g id=\"{id}\"><text class=\"lane-title\" x=\"{c:.1}\" y=\"22\" text-anchor=\"middle\">{}</text><line class=\"lifeline\" x1=\"{c:.1}\" y1=\"30\" x2=\"{c:.1}\" y2=\"{bottom:.1}\"/></g>",
            escape(title)
        );
    };
    for (i, t) in lanes.threads.iter().enumerate() {
        lane(
            &mut out,
            g.thread_x[i],
            THREAD_W,
            &format!("T{t}"),
            format!("lane-t{t}"),
        );
        if let Some(x) = g.buffer_x[i] {
            lane(
                &mut out,
                x,
                g.buffer_w,
                &format!("T{t} buffer"),
                format!("lane-b{t}"),
            );
        }
    }
    if picture.tso {
        lane(
            &mut out,
            g.memory_x,
            MEMORY_W,
            "memory",
            "lane-memory".into(),
        );
    }
    // Buffer entries: a bar from the store to the flush.
    for (id, e) in lanes.entries.iter().enumerate() {
        let x = g.bar_x(lanes, id);
        let y0 = g.mid(e.start);
        let end = e.end.map_or(bottom, |r| flush_y(&g, lanes, r, id));
        let label_x = g.buffer_left(lanes, e.thread) + 14.0 + lanes.slots() as f64 * SLOT_W;
        let origin = e.origin.as_deref().unwrap_or("");
        let _ = write!(
            out,
            "<g id=\"entry-{id}\" class=\"buffer-entry\"><title>T{} buffer: {} {}</title>",
            e.thread,
            escape(&e.item),
            escape(origin)
        );
        match e.marked {
            Some(m) if m > e.start => {
                let ym = flush_y(&g, lanes, m, id);
                let _ = write!(
                    out,
                    "<line class=\"entry\" x1=\"{x:.1}\" y1=\"{y0:.1}\" x2=\"{x:.1}\" y2=\"{ym:.1}\"/><line class=\"entry marked\" x1=\"{x:.1}\" y1=\"{ym:.1}\" x2=\"{x:.1}\" y2=\"{end:.1}\"/>"
                );
            }
            Some(_) => {
                let _ = write!(
                    out,
                    "<line class=\"entry marked\" x1=\"{x:.1}\" y1=\"{y0:.1}\" x2=\"{x:.1}\" y2=\"{end:.1}\"/>"
                );
            }
            None => {
                let _ = write!(
                    out,
                    "<line class=\"entry\" x1=\"{x:.1}\" y1=\"{y0:.1}\" x2=\"{x:.1}\" y2=\"{end:.1}\"/>"
                );
            }
        }
        let _ = writeln!(
            out,
            "<text x=\"{label_x:.1}\" y=\"{:.1}\">{}</text></g>",
            y0 + 4.0,
            escape(&fit(&e.item, LABEL_W - 8.0))
        );
    }
    let last = steps.len().saturating_sub(1);
    for (i, (step, row)) in steps.iter().zip(&lanes.rows).enumerate() {
        let li = g.lane(lanes, step.thread);
        let (x, y) = (g.thread_x[li] + 8.0, g.row_y[i] + 4.0);
        let w = THREAD_W - 16.0;
        let mut class = String::from("step");
        match row.action {
            Action::Load { .. } => class.push_str(" load"),
            Action::Store { .. } => class.push_str(" store"),
            Action::Other => {}
        }
        if row.stale.is_some() {
            class.push_str(" stale");
        }
        if i == last {
            class.push_str(" failing");
        }
        let action = match &row.read {
            Some(v) if !step.action.contains(" → ") => format!("{} → {v}", step.action),
            _ => step.action.clone(),
        };
        let full = format!("T{} {} {}", step.thread, place(step), action);
        let _ = write!(
            out,
            "<g id=\"step-{i}\" class=\"{class}\"><a href=\"#line-{i}\"><title>{}</title>\
<rect class=\"box\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{BOX_H}\" rx=\"4\"/>\
<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#666\">{}</text><text x=\"{:.1}\" y=\"{:.1}\">{}</text></a>",
            escape(&full),
            x + 5.0,
            y + 11.0,
            escape(&format!("{i}  {}", place(step))),
            x + 5.0,
            y + 24.0,
            escape(&fit(&action, w - 10.0))
        );
        // A store entering the buffer.
        for &entry in &row.stored {
            let bx = g.bar_x(lanes, entry);
            let ym = g.mid(i);
            let _ = write!(
                out,
                "<line class=\"arrow\" x1=\"{:.1}\" y1=\"{ym:.1}\" x2=\"{:.1}\" y2=\"{ym:.1}\"/>",
                x + w,
                bx - 3.0
            );
        }
        // The store a stale load missed.
        if let Some(stale) = &row.stale {
            let bx = g.bar_x(lanes, stale.entry);
            let ym = g.mid(i);
            let from = if bx > x { x + w } else { x };
            let e = &lanes.entries[stale.entry];
            let _ = write!(
                out,
                "<path id=\"stale-{i}\" class=\"stale-link\" d=\"M{from:.1},{ym:.1} L{bx:.1},{ym:.1}\"><title>stale read: T{}'s buffer still holds {}</title></path>",
                e.thread,
                escape(&e.item)
            );
        }
        if fences_here(step, &row.action, picture) {
            let fy = y + BOX_H + 8.0;
            let _ = write!(
                out,
                "<g id=\"fence-{i}\" class=\"fence-mark\"><line class=\"fence\" x1=\"{x:.1}\" y1=\"{fy:.1}\" x2=\"{:.1}\" y2=\"{fy:.1}\"/><text class=\"fence-label\" x=\"{:.1}\" y=\"{:.1}\">fence here (suggested)</text></g>",
                x + w,
                x + 5.0,
                fy + 13.0
            );
        }
        out.push_str("</g>\n");
        // Flushes at this step, each its own arrow to memory.
        for (k, flush) in row.flushes.iter().enumerate() {
            let bx = g.bar_x(lanes, flush.entry);
            let fy = g.row_y[i] + 10.0 + FLUSH_GAP * k as f64;
            let e = &lanes.entries[flush.entry];
            let class = if flush.marked_only {
                "flush marked"
            } else {
                "flush"
            };
            let what = if flush.marked_only {
                "counts as written"
            } else {
                "written to memory"
            };
            let _ = writeln!(
                out,
                "<g id=\"flush-{i}-{k}\"><title>T{}: {} {what}</title><line class=\"{class}\" x1=\"{bx:.1}\" y1=\"{fy:.1}\" x2=\"{:.1}\" y2=\"{fy:.1}\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text></g>",
                e.thread,
                escape(&e.item),
                g.memory_x + 8.0,
                g.memory_x + 12.0,
                fy + 4.0,
                escape(&fit(&e.item, MEMORY_W - 16.0))
            );
        }
    }
    if let (Some(step), Some(error)) = (steps.last(), &picture.report.error) {
        let x = g.thread_x[g.lane(lanes, step.thread)] + 8.0;
        let place = error.location.as_ref().map_or(String::new(), |l| {
            format!(
                " at {}:{}",
                crate::render::paths::short_name(&l.file),
                l.line
            )
        });
        let _ = writeln!(
            out,
            "<text id=\"error\" class=\"error-mark\" x=\"{x:.1}\" y=\"{:.1}\">✗ {}{}</text>",
            bottom + 18.0,
            escape(error.kind.as_str()),
            escape(&place)
        );
    }
    out.push_str("</svg>\n");
    out
}

/// The y of `entry`'s flush arrow in row `row`, or the row's middle when it has none.
fn flush_y(g: &Geometry, lanes: &Lanes, row: usize, entry: usize) -> f64 {
    lanes.rows[row]
        .flushes
        .iter()
        .position(|f| f.entry == entry)
        .map_or(g.mid(row), |k| g.row_y[row] + 10.0 + FLUSH_GAP * k as f64)
}
