//! The C11 ordering suggestion (`--suggest-fences` under `--memory-model c11`), for
//! people and as JSON (`fence_suggestion`, the TSO object's fields plus `orders`).

use std::fmt::Write as _;

use serde_json::{json, Value};
use tso_engine::{Location, MemOrder};
use tso_runtime::edit::{self, AccessKind, AtomicSite, Placement};
use tso_runtime::instrument::SourcePoint;

use crate::fences::FenceSuggestion;
use crate::ordering_suggestion::{Change, OrderingSuggestion, SearchEnd};
use crate::render::paths::{display_path, short_name};
use crate::render::source;
use crate::settings::{bound_name, CheckSettings};

fn short(p: &SourcePoint) -> String {
    format!("{}:{}", short_name(&p.file), p.line)
}

/// The source line at `p` (None when the file cannot be read).
fn line_at(p: &SourcePoint) -> Option<String> {
    let text = std::fs::read_to_string(&p.file).ok()?;
    Some(
        text.lines()
            .nth(p.line.checked_sub(1)? as usize)?
            .to_owned(),
    )
}

/// `relaxed`, `seq_cst`: the C11 name without `memory_order_`.
pub fn order_name(order: MemOrder) -> &'static str {
    match order {
        MemOrder::NotAtomic => "non-atomic",
        MemOrder::Relaxed => "relaxed",
        MemOrder::Acquire => "acquire",
        MemOrder::Release => "release",
        MemOrder::AcqRel => "acq_rel",
        MemOrder::SeqCst => "seq_cst",
    }
}

const ORDER_WORDS: [&str; 6] = [
    "relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst",
];

/// The byte ranges of the order names in `line` written `memory_order_X`,
/// `memory_order::X` or `__ATOMIC_X` (upper case), from byte `from` on, in order.
fn order_tokens(line: &str, from: usize) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    for (prefix, separators, upper) in [
        ("memory_order", &["::", "_"][..], false),
        ("__ATOMIC", &["_"][..], true),
    ] {
        let mut at = from.min(line.len());
        while let Some(i) = line.get(at..).and_then(|rest| rest.find(prefix)) {
            let start = at + i + prefix.len();
            let rest = &line[start..];
            let word = separators
                .iter()
                .find(|sep| rest.starts_with(**sep))
                .and_then(|sep| {
                    ORDER_WORDS
                        .iter()
                        .map(|w| {
                            if upper {
                                w.to_uppercase()
                            } else {
                                (*w).to_owned()
                            }
                        })
                        .find(|w| rest[sep.len()..].starts_with(w.as_str()))
                        .map(|w| start + sep.len()..start + sep.len() + w.len())
                });
            out.extend(word);
            at = start;
        }
    }
    out.sort_by_key(|r| r.start);
    out
}

/// `name` in the case of `token` (`SEQ_CST` for an `__ATOMIC_` token).
fn in_case_of(token: &str, name: &str) -> String {
    if token.chars().any(|c| c.is_ascii_uppercase()) {
        name.to_uppercase()
    } else {
        name.to_owned()
    }
}

/// The access's line with its order written `to` (and a compare-exchange's failure
/// order as the edit makes it): None unless the line names the orders after the
/// access's column.
fn rewritten(site: &AtomicSite, to: MemOrder) -> Option<String> {
    let line = line_at(&site.point)?;
    let tokens = order_tokens(&line, site.point.column.saturating_sub(1) as usize);
    let mut out = line.clone();
    let first = tokens.first()?.clone();
    if site.kind == AccessKind::CmpXchg {
        if let Some(second) = tokens.get(1) {
            let token = &line[second.clone()];
            let was = order_from_name(token).unwrap_or(MemOrder::Relaxed);
            let failure = order_name(edit::failure_order(to, was));
            out.replace_range(second.clone(), &in_case_of(token, failure));
        }
    }
    let name = in_case_of(&line[first.clone()], order_name(to));
    out.replace_range(first, &name);
    Some(out.trim().to_owned())
}

fn order_from_name(name: &str) -> Option<MemOrder> {
    Some(match name.to_lowercase().as_str() {
        "relaxed" => MemOrder::Relaxed,
        "consume" | "acquire" => MemOrder::Acquire,
        "release" => MemOrder::Release,
        "acq_rel" => MemOrder::AcqRel,
        "seq_cst" => MemOrder::SeqCst,
        _ => return None,
    })
}

/// The access's order: the one its instructions have, or for an order chosen at run
/// time (C++'s `std::atomic`), the one its source line names after its column.
fn current_order(site: &AtomicSite) -> Option<MemOrder> {
    if !site.dynamic {
        return Some(site.order);
    }
    let line = line_at(&site.point)?;
    let first = order_tokens(&line, site.point.column.saturating_sub(1) as usize)
        .into_iter()
        .next()?;
    order_from_name(&line[first])
}

fn fence_text(order: MemOrder) -> (String, String) {
    let name = order_name(order);
    (
        format!("atomic_thread_fence(memory_order_{name});"),
        format!("std::atomic_thread_fence(std::memory_order_{name});"),
    )
}

fn placement_word(p: Placement) -> &'static str {
    match p {
        Placement::Before => "before",
        Placement::After => "after",
    }
}

/// The suggestion section of a report, whichever model's suggestion there is;
/// `robustness`: TSO fences restore robustness rather than make a failing check pass.
pub fn suggestion_human(
    orderings: Option<&OrderingSuggestion>,
    fences: Option<&FenceSuggestion>,
    settings: &CheckSettings,
    robustness: bool,
) -> Option<String> {
    match (orderings, fences) {
        (Some(o), _) => Some(human(o, settings)),
        (None, Some(f)) => Some(crate::render::fences::human(f, settings, robustness)),
        (None, None) => None,
    }
}

/// The `fence_suggestion` field of a JSON report, whichever model's suggestion there
/// is (null when none was searched for this run).
pub fn suggestion_json(
    orderings: Option<&OrderingSuggestion>,
    fences: Option<&FenceSuggestion>,
) -> Value {
    match (orderings, fences) {
        (Some(o), _) => json(o),
        (None, Some(f)) => crate::render::fences::json(f),
        (None, None) => Value::Null,
    }
}

/// The ordering section of a report.
pub fn human(s: &OrderingSuggestion, settings: &CheckSettings) -> String {
    let mut out = String::new();
    let checks = s.checks;
    let none = match &s.end {
        SearchEnd::FailsUnderSc => Some("ordering suggestion: none — the failure also happens under sequential consistency, so no memory order or fence can fix it".to_owned()),
        SearchEnd::ScUndecided => Some("ordering suggestion: none — the SC re-run did not decide whether the failure needs C11's weak behaviours".to_owned()),
        SearchEnd::NoCandidate if s.candidates == 0 => Some(format!("ordering suggestion: none — the program's own code has no atomic access whose order could be strengthened ({checks} checks)")),
        SearchEnd::NoCandidate => Some(format!("ordering suggestion: none verified — with each of the {} atomic accesses of the program seq_cst, and with fences next to them, the check still fails ({checks} checks)", s.candidates)),
        SearchEnd::Undecided(why) => Some(format!("ordering suggestion: not verified — a check did not decide: {why} ({checks} checks)")),
        SearchEnd::Verified => None,
    };
    if let Some(line) = none {
        let _ = writeln!(out, "{line}");
        return out;
    }
    let n = s.changes.len();
    let noun = if n == 1 { "change" } else { "changes" };
    let _ = writeln!(
        out,
        "ordering suggestion ({n} {noun}, found and minimised with {checks} checks):"
    );
    for (i, change) in s.changes.iter().enumerate() {
        let site = change.site();
        let p = &site.point;
        match change {
            Change::Order { to, .. } => {
                let was = current_order(site)
                    .map_or(String::new(), |o| format!(" (it is {})", order_name(o)));
                let _ = writeln!(
                    out,
                    "{}. make the {} at {} {}{was}:",
                    i + 1,
                    site.kind.noun(),
                    short(p),
                    order_name(*to),
                );
            }
            Change::Fence { placement, .. } => {
                let _ = writeln!(
                    out,
                    "{}. a fence {} the {} at {}:",
                    i + 1,
                    placement_word(*placement),
                    site.kind.noun(),
                    short(p)
                );
            }
        }
        let loc = Location::new(p.file.as_str(), p.line, p.column);
        for line in source::snippet(&loc).lines() {
            let _ = writeln!(out, "   {line}");
        }
        match change {
            Change::Order { to, .. } => match rewritten(site, *to) {
                Some(text) => {
                    let _ = writeln!(out, "   write:  {text}");
                }
                None => {
                    let _ = writeln!(
                        out,
                        "   write its order as memory_order_{} (C11) or std::memory_order_{} (C++)",
                        order_name(*to),
                        order_name(*to)
                    );
                }
            },
            Change::Fence {
                placement, order, ..
            } => {
                let (c, cxx) = fence_text(*order);
                let _ = writeln!(
                    out,
                    "   insert {} it:  {c}  (C11, <stdatomic.h>)",
                    placement_word(*placement)
                );
                let pad = " ".repeat(placement_word(*placement).len());
                let _ = writeln!(out, "          {pad}     {cxx}  (C++, <atomic>)");
            }
        }
    }
    let model = format!(
        "C11 (RC11, history-bound {})",
        bound_name(settings.history_bound)
    );
    let these = if n == 1 {
        "this change".to_owned()
    } else {
        format!("these {n} changes")
    };
    let needed = match (s.minimal, s.smallest, n == 1) {
        (true, true, true) => {
            "; it is needed at this order, and no other single change of the candidates passes"
        }
        (true, true, false) => {
            "; each is needed at its order, and no smaller set of the candidate changes passes"
        }
        (true, false, true) => "; it is needed at this order",
        (true, false, false) => "; each is needed at its order",
        (false, _, _) => {
            " (not shown to be minimal: a re-check without one of them did not decide)"
        }
    };
    let _ = writeln!(out, "verified: passes under {model} with {these}{needed}");
    out
}

fn point_fields(p: &SourcePoint) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert("file".into(), display_path(&p.file).into());
    m.insert("line".into(), p.line.into());
    m.insert("column".into(), p.column.into());
    m
}

/// `fence_suggestion` in `--format json` under C11: the TSO object's fields (`fences`
/// are the suggested fences) and `orders`, the suggested orders.
pub fn json(s: &OrderingSuggestion) -> Value {
    let mut fences = Vec::new();
    let mut orders = Vec::new();
    for change in &s.changes {
        let site = change.site();
        let mut m = point_fields(&site.point);
        let text = line_at(&site.point).map(|l| l.trim().to_owned());
        m.insert("access".into(), site.kind.noun().into());
        match change {
            Change::Order { to, .. } => {
                m.insert("text".into(), text.into());
                m.insert("from".into(), current_order(site).map(order_name).into());
                m.insert("to".into(), order_name(*to).into());
                m.insert("rewritten".into(), rewritten(site, *to).into());
                orders.push(Value::Object(m));
            }
            Change::Fence {
                placement, order, ..
            } => {
                m.insert("after".into(), text.into());
                m.insert("exchange_possible".into(), false.into());
                m.insert("placement".into(), placement_word(*placement).into());
                m.insert("order".into(), order_name(*order).into());
                m.insert("fence".into(), fence_text(*order).0.into());
                fences.push(Value::Object(m));
            }
        }
    }
    let (result, message) = match &s.end {
        SearchEnd::Verified => ("verified", None),
        SearchEnd::FailsUnderSc => ("fails-under-sc", None),
        SearchEnd::ScUndecided => ("sc-undecided", None),
        SearchEnd::NoCandidate => ("no-candidate", None),
        SearchEnd::Undecided(why) => ("undecided", Some(why.clone())),
    };
    json!({
        "fences": fences,
        "orders": orders,
        "verified": s.verified(),
        "minimal": s.verified() && s.minimal,
        "smallest": s.verified() && s.smallest,
        "checks": s.checks,
        "result": result,
        "message": message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_names_are_found_after_the_column_in_both_spellings() {
        let line = "r = atomic_load_explicit(&x, memory_order_relaxed) + y.load(std::memory_order::acquire);";
        let t = order_tokens(line, 0);
        assert_eq!(t.len(), 2);
        assert_eq!(&line[t[0].clone()], "relaxed");
        assert_eq!(&line[t[1].clone()], "acquire");
        assert_eq!(order_tokens(line, 40).len(), 1);
        let builtin = "__atomic_store_n(&x, 1, __ATOMIC_RELAXED);";
        let t = order_tokens(builtin, 0);
        assert_eq!(&builtin[t[0].clone()], "RELAXED");
        assert_eq!(in_case_of("RELAXED", "seq_cst"), "SEQ_CST");
        assert_eq!(order_from_name("ACQ_REL"), Some(MemOrder::AcqRel));
    }
}
