//! Fence suggestions and store→load observations, for people and as JSON.

use std::fmt::Write as _;

use serde_json::{json, Value};
use tso_engine::Location;
use tso_runtime::instrument::SourcePoint;
use tso_runtime::runtime::Observation;

use crate::fences::{FenceSuggestion, SearchEnd};
use crate::render::paths::{display_path, short_name};
use crate::render::source;
use crate::settings::{bound_name, CheckSettings};

const C11_FENCE: &str = "atomic_thread_fence(memory_order_seq_cst);";
const CXX_FENCE: &str = "std::atomic_thread_fence(std::memory_order_seq_cst);";

fn short(p: &SourcePoint) -> String {
    format!("{}:{}", short_name(&p.file), p.line)
}

fn opt_short(p: &Option<SourcePoint>) -> String {
    p.as_ref().map_or_else(|| "unknown location".into(), short)
}

/// The source text of the store's line, trimmed (None when the file cannot be read).
fn line_text(p: &SourcePoint) -> Option<String> {
    let text = std::fs::read_to_string(&p.file).ok()?;
    let line = text.lines().nth(p.line.checked_sub(1)? as usize)?;
    Some(line.trim().to_owned())
}

/// The fence section of a report; `robustness`: the fences restore robustness
/// rather than make a failing check pass.
pub fn human(s: &FenceSuggestion, settings: &CheckSettings, robustness: bool) -> String {
    let mut out = String::new();
    let bound = bound_name(settings.sb_bound);
    match &s.end {
        SearchEnd::NoCandidate if s.fences.is_empty() => {
            let _ = writeln!(
                out,
                "fence suggestion: none — the counterexample shows no store still buffered when its thread loads another location, so the failure is not a store→load reordering a fence can forbid ({} checks)",
                s.checks
            );
            return out;
        }
        SearchEnd::NoCandidate => {
            let _ = writeln!(
                out,
                "fence suggestion: none verified — with fences after the {} stores below the check still fails, and its counterexample offers no new candidate ({} checks)",
                s.fences.len(),
                s.checks
            );
        }
        SearchEnd::Undecided(why) => {
            let _ = writeln!(
                out,
                "fence suggestion: not verified — a check did not decide: {why} ({} checks)",
                s.checks
            );
        }
        SearchEnd::Verified => {
            let _ = writeln!(
                out,
                "fence suggestion ({} {}, found and minimised with {} checks):",
                s.fences.len(),
                if s.fences.len() == 1 {
                    "fence"
                } else {
                    "fences"
                },
                s.checks
            );
        }
    }
    for (i, f) in s.fences.iter().enumerate() {
        let p = &f.after;
        let _ = writeln!(out, "{}. after the store at {}:", i + 1, short(p));
        let loc = Location::new(p.file.as_str(), p.line, p.column);
        for line in source::snippet(&loc).lines() {
            let _ = writeln!(out, "   {line}");
        }
        let _ = writeln!(
            out,
            "   insert after it:  {C11_FENCE}  (C11, <stdatomic.h>)"
        );
        let _ = writeln!(out, "                     {CXX_FENCE}  (C++, <atomic>)");
        if f.exchange_possible {
            let _ = writeln!(
                out,
                "   or make the store at {} `atomic_exchange` (a locked instruction drains the buffer)",
                short(p)
            );
        }
    }
    if s.verified() {
        let n = s.fences.len();
        let what = if robustness {
            "robust under x86-TSO"
        } else {
            "passes under x86-TSO"
        };
        let (these, needed) = if n == 1 {
            ("this fence".to_owned(), "it is needed")
        } else {
            (format!("these {n} fences"), "each one is needed")
        };
        if s.minimal {
            let _ = writeln!(
                out,
                "verified: {what} (sb-bound {bound}) with {these}; {needed}"
            );
        } else {
            let _ = writeln!(
                out,
                "verified: {what} (sb-bound {bound}) with {these} (not shown to be minimal: a re-check without one of them did not decide)"
            );
        }
    }
    out
}

/// `fence_suggestion` in `--format json`.
pub fn json(s: &FenceSuggestion) -> Value {
    let fences: Vec<Value> = s
        .fences
        .iter()
        .map(|f| {
            json!({
                "file": display_path(&f.after.file),
                "line": f.after.line,
                "column": f.after.column,
                "after": line_text(&f.after),
                "exchange_possible": f.exchange_possible,
            })
        })
        .collect();
    let (result, message) = match &s.end {
        SearchEnd::Verified => ("verified", None),
        SearchEnd::NoCandidate => ("no-candidate", None),
        SearchEnd::Undecided(why) => ("undecided", Some(why.clone())),
    };
    json!({
        "fences": fences,
        "verified": s.verified(),
        "minimal": s.verified() && s.minimal,
        "checks": s.checks,
        "result": result,
        "message": message,
    })
}

fn describe(o: &Observation) -> String {
    match o {
        Observation::LoadPassedStore {
            thread,
            load,
            load_what,
            value,
            store,
            store_what,
            ..
        } => format!(
            "T{thread} loaded {load_what} at {} (→ {value}) while its own store to {store_what} ({}) was still in its store buffer",
            opt_short(load),
            opt_short(store)
        ),
        Observation::StaleRead {
            thread,
            load,
            load_what,
            value,
            writer,
            store,
            store_what,
            store_value,
        } => format!(
            "T{thread} loaded {load_what} at {} and read the stale value {value}: T{writer}'s store {store_what} := {store_value} ({}) had executed but was still in T{writer}'s store buffer",
            opt_short(load),
            opt_short(store)
        ),
    }
}

/// `observation:` lines: which load read which stale value, which load passed which store.
pub fn observations_human(observations: &[Observation]) -> String {
    let mut out = String::new();
    if observations.is_empty() {
        return out;
    }
    out.push_str("observation:\n");
    let mut seen = Vec::new();
    // Stale reads first: they are what a person sees go wrong.
    let ordered = observations
        .iter()
        .filter(|o| matches!(o, Observation::StaleRead { .. }))
        .chain(
            observations
                .iter()
                .filter(|o| matches!(o, Observation::LoadPassedStore { .. })),
        );
    for o in ordered {
        let line = describe(o);
        if !seen.contains(&line) {
            let _ = writeln!(out, "  {line}");
            seen.push(line);
        }
    }
    out
}

fn point_json(p: &Option<SourcePoint>) -> Value {
    match p {
        Some(p) => json!({"file": display_path(&p.file), "line": p.line, "column": p.column}),
        None => Value::Null,
    }
}

pub fn observations_json(observations: &[Observation]) -> Value {
    observations
        .iter()
        .map(|o| match o {
            Observation::LoadPassedStore {
                thread,
                load,
                load_what,
                value,
                store,
                store_what,
                ..
            } => json!({
                "kind": "load-passed-store",
                "thread": thread,
                "load": point_json(load),
                "loaded": load_what,
                "value": value,
                "store": point_json(store),
                "stored": store_what,
            }),
            Observation::StaleRead {
                thread,
                load,
                load_what,
                value,
                writer,
                store,
                store_what,
                store_value,
            } => json!({
                "kind": "stale-read",
                "thread": thread,
                "load": point_json(load),
                "loaded": load_what,
                "value": value,
                "writer": writer,
                "store": point_json(store),
                "stored": store_what,
                "stored_value": store_value,
            }),
        })
        .collect()
}
