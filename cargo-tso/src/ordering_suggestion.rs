//! `--suggest-fences` under `--memory-model c11`: the weakest verified change of memory
//! orders, or else of fences, that makes a failing check pass.
//!
//! Candidates are the atomic accesses of the counterexample (its trace's source
//! positions, matched with the program's atomic accesses, `tso_runtime::edit`), and
//! when no set of those passes, every atomic access of the program. A
//! candidate set is tried by editing the program's module (`edit::apply`) and running
//! the same full check on it: a change is verified only by a check of the edited
//! program that passes, never by a bounded or inconclusive one.
//!
//! Levels, weakest first: release on stores, acquire on loads and acq_rel on
//! read-modify-writes; then seq_cst; then fences (release before a store, acquire
//! after a load, seq_cst after either). At each level every candidate is raised at
//! once; while that fails, the accesses of the new counterexample join the candidates,
//! until it passes or no access is new (the next level). Stronger orders and more
//! fences only remove behaviours (RC11 is monotone in them), so a set that fails has
//! no passing subset. From a passing set: the smallest passing subset, smallest sets
//! first (past a budget of checks, dropping each change in turn instead), then each
//! order lowered to the weakest that still passes.
//!
//! A failure that happens under sequential consistency too has no ordering fix: a
//! race-free program whose atomics are all seq_cst has only SC behaviours (RC11's
//! DRF-SC), and the check reports that without searching.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use inkwell::context::Context;
use tso_engine::{MemOrder, Verdict};
use tso_runtime::edit::{self, AccessKind, AtomicSite, Placement, ProgramEdit};
use tso_runtime::instrument::SourcePoint;

use crate::pipeline::{self, PipelineError, Request};
use crate::run_report::{RunReport, ScClassification};

/// One candidate change of the program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The access gets a stronger order.
    Order { site: AtomicSite, to: MemOrder },
    /// A thread fence next to the access.
    Fence {
        site: AtomicSite,
        placement: Placement,
        order: MemOrder,
    },
}

impl Change {
    pub fn site(&self) -> &AtomicSite {
        match self {
            Change::Order { site, .. } | Change::Fence { site, .. } => site,
        }
    }

    fn edit(&self) -> ProgramEdit {
        match self {
            Change::Order { site, to } => ProgramEdit::Order {
                at: site.point.clone(),
                kind: site.kind,
                order: *to,
            },
            Change::Fence {
                site,
                placement,
                order,
            } => ProgramEdit::Fence {
                at: site.point.clone(),
                kind: site.kind,
                placement: *placement,
                order: *order,
            },
        }
    }
}

/// How the search ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchEnd {
    /// The check passes with the changes.
    Verified,
    /// The failure happens under sequential consistency too: no order or fence fixes it.
    FailsUnderSc,
    /// The SC re-run did not decide, so neither was the search tried.
    ScUndecided,
    /// No candidate (no atomic access in the program's own code), or every candidate
    /// at every level leaves the check failing.
    NoCandidate,
    /// A check was inconclusive or could not run.
    Undecided(String),
}

/// The result of the search.
#[derive(Debug, Clone)]
pub struct OrderingSuggestion {
    pub changes: Vec<Change>,
    pub end: SearchEnd,
    /// Dropping any one change, or lowering any one order, makes the check fail.
    pub minimal: bool,
    /// No smaller set of the candidate changes passes (every smaller one was checked).
    pub smallest: bool,
    /// Candidate accesses considered (of the counterexamples, then of the program).
    pub candidates: usize,
    /// Checks the search made.
    pub checks: u32,
}

impl OrderingSuggestion {
    pub fn verified(&self) -> bool {
        self.end == SearchEnd::Verified
    }

    fn ended(end: SearchEnd) -> OrderingSuggestion {
        OrderingSuggestion {
            changes: Vec::new(),
            end,
            minimal: false,
            smallest: false,
            candidates: 0,
            checks: 0,
        }
    }
}

/// One check of the program with some changes.
pub struct Trial {
    pub verdict: Verdict,
    /// The source positions of the counterexample's steps (a failure).
    pub points: Vec<SourcePoint>,
    /// Why the check did not decide (inconclusive or error).
    pub reason: Option<String>,
}

/// The source positions of a run's counterexample.
pub fn trace_points(report: &RunReport) -> Vec<SourcePoint> {
    report
        .trace
        .iter()
        .filter_map(|s| s.location.as_ref())
        .map(|l| SourcePoint {
            file: l.file.to_string(),
            line: l.line,
            column: l.column,
        })
        .collect()
}

/// The suggestion for a C11 failure with `failure` as its run, given the SC
/// classification of that failure.
pub fn suggest(
    request: &Request<'_>,
    failure: &RunReport,
    sc: ScClassification,
) -> Result<OrderingSuggestion, PipelineError> {
    match sc {
        ScClassification::FailsUnderSc => {
            return Ok(OrderingSuggestion::ended(SearchEnd::FailsUnderSc))
        }
        ScClassification::Unknown => return Ok(OrderingSuggestion::ended(SearchEnd::ScUndecided)),
        ScClassification::NeedsTso => {}
    }
    let context = Context::create();
    let module = tso_engine::parse_module(&context, request.bitcode)?;
    let sites = edit::atomic_sites(&module);
    drop(module);
    Ok(search(&sites, &trace_points(failure), |changes| {
        edited_trial(request, changes)
    }))
}

/// A fresh path for an edited module (several checks may run at once).
fn scratch_bitcode() -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    std::env::temp_dir().join(format!(
        "cargo-tso-edited-{}-{}.bc",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ))
}

/// The full check of the program with `changes` made to it.
pub fn edited_trial(request: &Request<'_>, changes: &[Change]) -> Result<Trial, PipelineError> {
    let edits: Vec<ProgramEdit> = changes.iter().map(Change::edit).collect();
    let path = scratch_bitcode();
    {
        let context = Context::create();
        let module = tso_engine::parse_module(&context, request.bitcode)?;
        edit::apply(&module, &edits)
            .map_err(|e| PipelineError::Internal(format!("editing the program: {e}")))?;
        if !module.write_bitcode_to_path(&path) {
            return Err(PipelineError::Emit {
                path,
                message: "LLVM could not write the edited module".into(),
            });
        }
    }
    let outcome = pipeline::run_guarded(&Request {
        bitcode: &path,
        ..request.clone()
    });
    let _ = std::fs::remove_file(&path);
    let outcome = outcome?;
    Ok(Trial {
        verdict: outcome.verdict,
        points: trace_points(&outcome),
        reason: outcome
            .inconclusive_reason
            .clone()
            .or_else(|| outcome.error.as_ref().map(|f| f.message.clone())),
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    AcquireRelease,
    SeqCst,
    Fences,
}

/// The order an access of `kind` gets at the acquire/release level.
fn acquire_release(kind: AccessKind) -> MemOrder {
    match kind {
        AccessKind::Load => MemOrder::Acquire,
        AccessKind::Store => MemOrder::Release,
        AccessKind::Rmw | AccessKind::CmpXchg => MemOrder::AcqRel,
    }
}

/// The changes of `level` for one access, weakest first.
fn raise(site: &AtomicSite, level: Level) -> Vec<Change> {
    let order = |to: MemOrder| {
        (!edit::at_least(site.order, to)).then(|| Change::Order {
            site: site.clone(),
            to,
        })
    };
    let fence = |placement, order| Change::Fence {
        site: site.clone(),
        placement,
        order,
    };
    match level {
        Level::AcquireRelease => order(acquire_release(site.kind)).into_iter().collect(),
        Level::SeqCst => order(MemOrder::SeqCst).into_iter().collect(),
        Level::Fences => {
            let mut out = Vec::new();
            if site.kind != AccessKind::Load {
                out.push(fence(Placement::Before, MemOrder::Release));
            }
            if site.kind != AccessKind::Store {
                out.push(fence(Placement::After, MemOrder::Acquire));
            }
            out.push(fence(Placement::After, MemOrder::SeqCst));
            out
        }
    }
}

/// Orders weaker than `to` but still stronger than the access's own, weakest first.
fn weaker_orders(site: &AtomicSite, to: MemOrder) -> Vec<MemOrder> {
    [
        MemOrder::Acquire,
        MemOrder::Release,
        MemOrder::AcqRel,
        MemOrder::SeqCst,
    ]
    .into_iter()
    .filter(|&o| {
        site.kind.allows(o)
            && edit::strength(o) < edit::strength(to)
            && !edit::at_least(site.order, o)
    })
    .collect()
}

/// At most this many rounds of adding candidates at one level.
const MAX_ROUNDS: u32 = 64;
/// At most this many checks looking for the smallest passing subset; past it, the
/// passing set is minimised by dropping one change at a time.
const MAX_SUBSET_CHECKS: u32 = 48;

/// The sites of `sites` at the positions `points`, in the order of the points.
fn involved<'s>(sites: &'s [AtomicSite], points: &[SourcePoint]) -> Vec<&'s AtomicSite> {
    let mut out: Vec<&AtomicSite> = Vec::new();
    for p in points {
        for s in sites.iter().filter(|s| &s.point == p) {
            if !out.contains(&s) {
                out.push(s);
            }
        }
    }
    out
}

/// Searches changes for a check that fails with a counterexample at `first`;
/// `check` runs the full check of the program with the given changes.
pub fn search(
    sites: &[AtomicSite],
    first: &[SourcePoint],
    mut check: impl FnMut(&[Change]) -> Result<Trial, PipelineError>,
) -> OrderingSuggestion {
    let mut candidates = involved(sites, first);
    let mut checks = 0;
    let result = |changes, end, minimal, smallest, candidates: usize, checks| OrderingSuggestion {
        changes,
        end,
        minimal,
        smallest,
        candidates,
        checks,
    };
    let mut run = |changes: &[Change], checks: &mut u32| {
        *checks += 1;
        check(changes)
    };
    for widened in [false, true] {
        if widened {
            // The counterexample need not show every access that matters (a race is
            // reported before the reader's loop is in the trace): every atomic access
            // of the program joins, once.
            let before = candidates.len();
            candidates.extend(
                sites
                    .iter()
                    .filter(|s| !candidates.contains(s))
                    .collect::<Vec<_>>(),
            );
            if candidates.len() == before {
                break;
            }
        }
        for level in [Level::AcquireRelease, Level::SeqCst, Level::Fences] {
            let mut rounds = 0;
            loop {
                let changes: Vec<Change> =
                    candidates.iter().flat_map(|s| raise(s, level)).collect();
                if changes.is_empty() || rounds >= MAX_ROUNDS {
                    break;
                }
                rounds += 1;
                let trial = match run(&changes, &mut checks) {
                    Ok(t) => t,
                    Err(e) => {
                        return result(
                            changes,
                            SearchEnd::Undecided(e.to_string()),
                            false,
                            false,
                            candidates.len(),
                            checks,
                        )
                    }
                };
                match trial.verdict {
                    Verdict::Pass => {
                        let (changes, minimal, smallest) =
                            minimise(changes, &mut |c| run(c, &mut checks).map(|t| t.verdict));
                        return result(
                            changes,
                            SearchEnd::Verified,
                            minimal,
                            smallest,
                            candidates.len(),
                            checks,
                        );
                    }
                    Verdict::Fail => {
                        let new: Vec<&AtomicSite> = involved(sites, &trial.points)
                            .into_iter()
                            .filter(|s| !candidates.contains(s))
                            .collect();
                        if new.is_empty() {
                            break;
                        }
                        candidates.extend(new);
                    }
                    Verdict::Inconclusive | Verdict::Error => {
                        let why = trial
                            .reason
                            .unwrap_or_else(|| "a check did not decide".into());
                        return result(
                            changes,
                            SearchEnd::Undecided(why),
                            false,
                            false,
                            candidates.len(),
                            checks,
                        );
                    }
                }
            }
        }
    }
    let n = candidates.len();
    result(Vec::new(), SearchEnd::NoCandidate, false, false, n, checks)
}

/// From a passing set: the smallest passing subset, then each order as weak as still
/// passes. Returns the changes, whether each was shown needed at its strength, and
/// whether every smaller set was shown to fail.
fn minimise(
    all: Vec<Change>,
    check: &mut dyn FnMut(&[Change]) -> Result<Verdict, PipelineError>,
) -> (Vec<Change>, bool, bool) {
    let mut decided = true;
    let mut budget = MAX_SUBSET_CHECKS;
    let mut best: Option<Vec<Change>> = None;
    'sizes: for k in 1..all.len() {
        for subset in combinations(all.len(), k) {
            if budget == 0 {
                break 'sizes;
            }
            budget -= 1;
            let changes: Vec<Change> = subset.iter().map(|&i| all[i].clone()).collect();
            match check(&changes) {
                Ok(Verdict::Pass) => {
                    best = Some(changes);
                    break 'sizes;
                }
                Ok(Verdict::Fail) => {}
                _ => decided = false,
            }
        }
    }
    let exhausted = budget == 0 && best.is_none();
    let mut changes = match best {
        Some(b) => b,
        None if !exhausted => all,
        None => {
            // Past the budget: drop each change in turn, keep it only if needed.
            let mut kept = all;
            let mut i = 0;
            while i < kept.len() {
                let mut without = kept.clone();
                without.remove(i);
                match check(&without) {
                    Ok(Verdict::Pass) => kept = without,
                    Ok(Verdict::Fail) => i += 1,
                    _ => {
                        decided = false;
                        i += 1;
                    }
                }
            }
            kept
        }
    };
    let smallest = decided && !exhausted;
    let mut minimal = decided;
    // Lower each order to the weakest that still passes.
    for i in 0..changes.len() {
        let Change::Order { site, to } = changes[i].clone() else {
            continue;
        };
        for weaker in weaker_orders(&site, to) {
            let mut tried = changes.clone();
            tried[i] = Change::Order {
                site: site.clone(),
                to: weaker,
            };
            match check(&tried) {
                Ok(Verdict::Pass) => {
                    changes = tried;
                    break;
                }
                Ok(Verdict::Fail) => {}
                _ => minimal = false,
            }
        }
    }
    (changes, minimal, smallest)
}

/// The `k`-element subsets of `0..n`, in lexicographic order.
fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut current: Vec<usize> = (0..k).collect();
    if k == 0 || k > n {
        return out;
    }
    loop {
        out.push(current.clone());
        let Some(i) = (0..k).rev().find(|&i| current[i] != i + n - k) else {
            return out;
        };
        current[i] += 1;
        for j in i + 1..k {
            current[j] = current[j - 1] + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(line: u32, kind: AccessKind) -> AtomicSite {
        AtomicSite {
            point: SourcePoint {
                file: "p.c".into(),
                line,
                column: 5,
            },
            kind,
            order: MemOrder::Relaxed,
            dynamic: false,
        }
    }

    fn strength_at(changes: &[Change], line: u32) -> u8 {
        changes
            .iter()
            .filter_map(|c| match c {
                Change::Order { site, to } if site.point.line == line => Some(edit::strength(*to)),
                _ => None,
            })
            .max()
            .unwrap_or(1)
    }

    /// A model program: it passes when each line of `needs` has at least the order's
    /// strength; every counterexample shows `shown`.
    fn model<'a>(
        needs: &'static [(u32, MemOrder)],
        shown: &'static [u32],
        log: &'a std::cell::RefCell<u32>,
    ) -> impl FnMut(&[Change]) -> Result<Trial, PipelineError> + 'a {
        move |changes| {
            *log.borrow_mut() += 1;
            let pass = needs
                .iter()
                .all(|&(line, o)| strength_at(changes, line) >= edit::strength(o));
            Ok(Trial {
                verdict: if pass { Verdict::Pass } else { Verdict::Fail },
                points: shown
                    .iter()
                    .map(|&line| site(line, AccessKind::Load).point)
                    .collect(),
                reason: None,
            })
        }
    }

    #[test]
    fn message_passing_needs_both_the_release_and_the_acquire() {
        let sites = [
            site(10, AccessKind::Store),
            site(11, AccessKind::Store),
            site(20, AccessKind::Load),
            site(21, AccessKind::Load),
        ];
        let first: Vec<SourcePoint> = sites.iter().map(|s| s.point.clone()).collect();
        let log = std::cell::RefCell::new(0);
        let needs = &[(11, MemOrder::Release), (20, MemOrder::Acquire)];
        let s = search(&sites, &first, model(needs, &[], &log));
        assert!(s.verified() && s.minimal && s.smallest, "{s:?}");
        let got: Vec<(u32, MemOrder)> = s
            .changes
            .iter()
            .map(|c| match c {
                Change::Order { site, to } => (site.point.line, *to),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(got, vec![(11, MemOrder::Release), (20, MemOrder::Acquire)]);
    }

    #[test]
    fn a_failure_release_acquire_cannot_fix_gets_seq_cst_lowered_where_it_can() {
        let sites = [site(10, AccessKind::Store), site(20, AccessKind::Load)];
        let first: Vec<SourcePoint> = sites.iter().map(|s| s.point.clone()).collect();
        let log = std::cell::RefCell::new(0);
        let needs = &[(10, MemOrder::SeqCst), (20, MemOrder::Acquire)];
        let s = search(&sites, &first, model(needs, &[], &log));
        assert!(s.verified() && s.minimal, "{s:?}");
        assert_eq!(
            strength_at(&s.changes, 10),
            edit::strength(MemOrder::SeqCst)
        );
        assert_eq!(
            strength_at(&s.changes, 20),
            edit::strength(MemOrder::Acquire)
        );
    }

    #[test]
    fn accesses_of_later_counterexamples_join_the_candidates() {
        let sites = [site(10, AccessKind::Store), site(20, AccessKind::Load)];
        let log = std::cell::RefCell::new(0);
        let needs = &[(10, MemOrder::Release), (20, MemOrder::Acquire)];
        // The first counterexample shows only the store; the next shows the load.
        let s = search(&sites, &[sites[0].point.clone()], model(needs, &[20], &log));
        assert!(s.verified(), "{s:?}");
        assert_eq!(s.changes.len(), 2);
    }

    #[test]
    fn without_an_atomic_access_in_the_program_there_is_no_candidate() {
        let log = std::cell::RefCell::new(0);
        let s = search(&[], &[], model(&[], &[], &log));
        assert_eq!((s.end, s.checks), (SearchEnd::NoCandidate, 0));
    }

    #[test]
    fn every_atomic_access_of_the_program_joins_when_the_counterexample_shows_too_few() {
        let sites = [site(10, AccessKind::Store), site(20, AccessKind::Load)];
        let log = std::cell::RefCell::new(0);
        let needs = &[(10, MemOrder::Release), (20, MemOrder::Acquire)];
        // Every counterexample shows only the store.
        let s = search(&sites, &[sites[0].point.clone()], model(needs, &[10], &log));
        assert!(s.verified() && s.minimal, "{s:?}");
        assert_eq!(s.changes.len(), 2);
    }

    #[test]
    fn fences_are_tried_when_no_order_passes() {
        let sites = [site(10, AccessKind::Store), site(20, AccessKind::Load)];
        let first: Vec<SourcePoint> = sites.iter().map(|s| s.point.clone()).collect();
        let wanted = Change::Fence {
            site: sites[0].clone(),
            placement: Placement::After,
            order: MemOrder::SeqCst,
        };
        let s = search(&sites, &first, |changes: &[Change]| {
            Ok(Trial {
                verdict: if changes.contains(&wanted) {
                    Verdict::Pass
                } else {
                    Verdict::Fail
                },
                points: Vec::new(),
                reason: None,
            })
        });
        assert!(s.verified() && s.smallest, "{s:?}");
        assert_eq!(s.changes, vec![wanted]);
    }

    #[test]
    fn an_undecided_check_is_never_a_verified_suggestion() {
        let sites = [site(10, AccessKind::Store)];
        let s = search(&sites, &[sites[0].point.clone()], |_: &[Change]| {
            Ok(Trial {
                verdict: Verdict::Inconclusive,
                points: Vec::new(),
                reason: Some("max-states reached".into()),
            })
        });
        assert_eq!(s.end, SearchEnd::Undecided("max-states reached".into()));
        assert!(!s.verified());
    }

    #[test]
    fn combinations_are_every_subset_of_the_size_once() {
        assert_eq!(combinations(4, 2).len(), 6);
        assert_eq!(combinations(3, 3), vec![vec![0, 1, 2]]);
        assert_eq!(combinations(3, 1), vec![vec![0], vec![1], vec![2]]);
    }
}
