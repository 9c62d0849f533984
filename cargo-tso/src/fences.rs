//! `--suggest-fences`: verified, minimal fence placements for a failure that needs
//! TSO (or for a robustness violation).
//!
//! Candidates come from the counterexample: a load by thread t that executed while
//! t's own older store to other bytes was still in t's buffer (the runtime records
//! these while the engine replays the failing path, see
//! `tso_runtime::runtime::Observation`). A fence right after that store forbids the
//! reordering. The pass inserts candidate fences itself (by the store's source
//! position), so the user's file is never edited.
//!
//! Search: add every candidate of the current counterexample and re-check, until the
//! check passes or a counterexample offers no new candidate (then the failure is not
//! a store→load reordering a fence can forbid). Minimise: drop each fence in turn and
//! re-check; keep it only if the check then fails. Fences only remove behaviours, so
//! the result is 1-minimal: removing any single fence makes the check fail again.

use tso_engine::Verdict;
use tso_runtime::instrument::SourcePoint;
use tso_runtime::runtime::Observation;

use crate::pipeline::{self, PipelineError, Request, RunExtras};
use tso_runtime::runtime::ObservationLog;

/// One check of the program with some fences: its verdict and what the replay of
/// its counterexample (if any) observed.
pub struct Trial {
    pub verdict: Verdict,
    pub observations: Vec<Observation>,
    /// Why the check did not decide (inconclusive or error).
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuggestedFence {
    /// The store the fence goes after.
    pub after: SourcePoint,
    /// The store writes 1, 2, 4 or 8 bytes: it could be an `atomic_exchange` instead.
    pub exchange_possible: bool,
}

/// How the search ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchEnd {
    /// The check passes with the fences.
    Verified,
    /// A counterexample offered no new candidate: not a store→load reordering.
    NoCandidate,
    /// A check was inconclusive or could not run.
    Undecided(String),
}

#[derive(Debug, Clone)]
pub struct FenceSuggestion {
    pub fences: Vec<SuggestedFence>,
    pub end: SearchEnd,
    /// Every remaining fence was shown to be needed.
    pub minimal: bool,
    /// Re-checks the search and the minimisation made.
    pub checks: u32,
}

impl FenceSuggestion {
    pub fn verified(&self) -> bool {
        self.end == SearchEnd::Verified
    }
}

/// One check of the program with candidate fences, for the fence search.
pub fn fenced_trial(request: &Request<'_>, fences: &[SourcePoint]) -> Result<Trial, PipelineError> {
    let log: ObservationLog = Default::default();
    let outcome = pipeline::run_guarded_with(
        request,
        &RunExtras {
            fences_after: fences.to_vec(),
            observations: Some(log.clone()),
            ..RunExtras::default()
        },
    )?;
    let observations = log.lock().map(|l| l.clone()).unwrap_or_default();
    Ok(Trial {
        verdict: outcome.verdict,
        observations,
        reason: outcome
            .inconclusive_reason
            .clone()
            .or_else(|| outcome.error.as_ref().map(|f| f.message.clone())),
    })
}

/// At most this many rounds of adding candidates (each round adds at least one new
/// store position, so a program with fewer stores ends earlier).
const MAX_ROUNDS: u32 = 64;

fn candidates(observations: &[Observation]) -> Vec<SuggestedFence> {
    let mut out: Vec<SuggestedFence> = Vec::new();
    for o in observations {
        if let Observation::LoadPassedStore {
            store: Some(store),
            store_len,
            ..
        } = o
        {
            if !out.iter().any(|f| &f.after == store) {
                out.push(SuggestedFence {
                    after: store.clone(),
                    exchange_possible: matches!(store_len, 1 | 2 | 4 | 8),
                });
            }
        }
    }
    out
}

fn points(fences: &[SuggestedFence]) -> Vec<SourcePoint> {
    fences.iter().map(|f| f.after.clone()).collect()
}

/// Searches fences for a check that fails with `first` observations; `check` runs the
/// check with fences after the given stores.
pub fn search(
    first: &[Observation],
    mut check: impl FnMut(&[SourcePoint]) -> Result<Trial, PipelineError>,
) -> FenceSuggestion {
    let mut placed: Vec<SuggestedFence> = Vec::new();
    let mut observations = first.to_vec();
    let mut checks = 0;
    let mut rounds = 0;
    let undecided = |fences: Vec<SuggestedFence>, checks, why: String| FenceSuggestion {
        fences,
        end: SearchEnd::Undecided(why),
        minimal: false,
        checks,
    };
    loop {
        let new: Vec<SuggestedFence> = candidates(&observations)
            .into_iter()
            .filter(|c| !placed.iter().any(|p| p.after == c.after))
            .collect();
        if new.is_empty() || rounds >= MAX_ROUNDS {
            return FenceSuggestion {
                fences: placed,
                end: SearchEnd::NoCandidate,
                minimal: false,
                checks,
            };
        }
        rounds += 1;
        placed.extend(new);
        checks += 1;
        let trial = match check(&points(&placed)) {
            Ok(t) => t,
            Err(e) => return undecided(placed, checks, e.to_string()),
        };
        match trial.verdict {
            Verdict::Pass => break,
            Verdict::Fail => observations = trial.observations,
            Verdict::Inconclusive | Verdict::Error => {
                let why = trial
                    .reason
                    .unwrap_or_else(|| "a check did not decide".into());
                return undecided(placed, checks, why);
            }
        }
    }
    // Minimise: a fence stays only if the check fails without it.
    let mut minimal = true;
    let mut i = 0;
    while i < placed.len() {
        let mut without = placed.clone();
        without.remove(i);
        checks += 1;
        match check(&points(&without)).map(|t| t.verdict) {
            Ok(Verdict::Pass) => placed = without,
            Ok(Verdict::Fail) => i += 1,
            _ => {
                // Not shown to be needed, but the set with it is verified: keep it.
                minimal = false;
                i += 1;
            }
        }
    }
    FenceSuggestion {
        fences: placed,
        end: SearchEnd::Verified,
        minimal,
        checks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(line: u32) -> SourcePoint {
        SourcePoint {
            file: "p.c".into(),
            line,
            column: 5,
        }
    }

    fn passed(store: u32) -> Observation {
        Observation::LoadPassedStore {
            thread: 1,
            load: Some(point(100)),
            load_what: "y".into(),
            value: "0".into(),
            store: Some(point(store)),
            store_what: "x".into(),
            store_len: 4,
        }
    }

    /// A model program: it passes exactly when every store in `needed` is fenced;
    /// its counterexamples show every unfenced store of `shown` as passed.
    fn model<'a>(
        needed: &'static [u32],
        shown: &'static [u32],
        log: &'a std::cell::RefCell<Vec<Vec<u32>>>,
    ) -> impl FnMut(&[SourcePoint]) -> Result<Trial, PipelineError> + 'a {
        move |fences| {
            let lines: Vec<u32> = fences.iter().map(|p| p.line).collect();
            log.borrow_mut().push(lines.clone());
            let pass = needed.iter().all(|n| lines.contains(n));
            Ok(Trial {
                verdict: if pass { Verdict::Pass } else { Verdict::Fail },
                observations: shown
                    .iter()
                    .filter(|s| !lines.contains(s))
                    .map(|&s| passed(s))
                    .collect(),
                reason: None,
            })
        }
    }

    #[test]
    fn unneeded_candidates_are_dropped_and_each_kept_fence_is_needed() {
        let log = std::cell::RefCell::new(Vec::new());
        let first = [passed(10), passed(11), passed(20)];
        let s = search(&first, model(&[10, 20], &[10, 11, 20], &log));
        assert!(s.verified() && s.minimal);
        let lines: Vec<u32> = s.fences.iter().map(|f| f.after.line).collect();
        assert_eq!(lines, vec![10, 20]);
        // One round with all three, then one re-check per fence.
        assert_eq!(s.checks, 4);
        assert_eq!(log.borrow()[0], vec![10, 11, 20]);
    }

    #[test]
    fn a_failure_without_reorderings_has_no_candidate() {
        let log = std::cell::RefCell::new(Vec::new());
        let s = search(&[], model(&[1], &[], &log));
        assert_eq!(s.end, SearchEnd::NoCandidate);
        assert!(!s.verified() && s.fences.is_empty() && s.checks == 0);
    }

    #[test]
    fn candidates_found_in_later_counterexamples_are_added() {
        let log = std::cell::RefCell::new(Vec::new());
        // The first counterexample only shows store 10; once it is fenced, 20 shows.
        let s = search(&[passed(10)], model(&[10, 20], &[20], &log));
        assert!(s.verified());
        assert_eq!(log.borrow()[0], vec![10]);
        assert_eq!(log.borrow()[1], vec![10, 20]);
    }
}
