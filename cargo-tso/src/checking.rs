//! One check and its follow-ups as one library call: the run, the SC re-run that
//! classifies a TSO failure, the x86 re-runs that classify a C11 failure, the fence
//! search ([`crate::fences`]) and the robustness check ([`crate::robustness`]).
//! `cargo tso check` and each test of `cargo tso test` build one [`CheckRequest`] and
//! read one [`Checked`]; neither chains runs itself. A bound sweep is one
//! [`SweepRequest`]: the same check at each store-buffer bound, one SC re-run for all
//! of them, read as [`Swept`] rows.

use std::sync::OnceLock;
use std::time::Instant;

use tso_engine::Verdict;
use tso_runtime::instrument::SourcePoint;
use tso_runtime::runtime::ObservationLog;

use crate::fences::{self, FenceSuggestion, Trial};
use crate::pipeline::{self, PipelineError, Request, RunExtras};
use crate::robustness::{self, Robustness, RobustnessReport};
use crate::run_report::{Phase, RunReport, ScRerun, X86Rerun};

/// Whether a failing run, with its SC re-run, gets a fence suggestion.
pub type WantsFences = dyn Fn(&RunReport, Option<&ScRerun>) -> bool + Sync;

/// What one check is asked to do.
#[derive(Clone)]
pub struct CheckRequest<'a> {
    /// The program, its entry and its settings: the same for every run of the check.
    pub run: Request<'a>,
    /// Decide robustness (`--robustness`, `TSO_TEST_ROBUST`): compare the states x86-TSO
    /// reaches with those sequential consistency reaches.
    pub robustness: bool,
    /// `--suggest-fences`: which failures get fences (None: no fence search). Under
    /// `robustness`, a program that is not robust gets them.
    pub fences: Option<&'a WantsFences>,
}

/// What one check found.
pub struct Checked {
    /// The run that gives the verdict, with the time of every phase of the check.
    pub outcome: RunReport,
    /// The SC re-run of a TSO failure.
    pub sc: Option<ScRerun>,
    /// The re-runs on x86 (TSO, then SC) of a C11 failure.
    pub x86: Option<X86Rerun>,
    /// The fence suggestion, when fences were searched.
    pub fences: Option<FenceSuggestion>,
    /// The robustness check, when asked for.
    pub robustness: Option<RobustnessReport>,
}

/// Runs the check `request` asks for.
pub fn check(request: &CheckRequest<'_>) -> Result<Checked, PipelineError> {
    check_sharing(request, None)
}

/// [`check`], with the SC re-run of `sc_memo` when there is one (the runs of a sweep
/// share it: the SC verdict does not depend on the bound).
fn check_sharing(
    request: &CheckRequest<'_>,
    sc_memo: Option<&OnceLock<ScRerun>>,
) -> Result<Checked, PipelineError> {
    if request.robustness {
        return check_robustness(request);
    }
    let run = &request.run;
    let log: Option<ObservationLog> = request.fences.is_some().then(Default::default);
    let extras = RunExtras {
        observations: log.clone(),
        ..RunExtras::default()
    };
    let mut outcome = pipeline::run_guarded_with(run, &extras)?;
    let sc = pipeline::wants_sc_rerun(run.settings, &outcome).then(|| {
        let (sc, ran) = match sc_memo {
            Some(memo) => {
                let mut ran = false;
                let sc = memo.get_or_init(|| {
                    ran = true;
                    pipeline::sc_rerun(run)
                });
                (sc.clone(), ran)
            }
            None => (pipeline::sc_rerun(run), true),
        };
        if ran {
            // Only the check that ran it spent its time.
            pipeline::add_sc_rerun_time(&mut outcome, &sc);
        }
        sc
    });
    let x86 = x86_rerun(run, &mut outcome);
    let fences = match (&log, request.fences) {
        (Some(log), Some(wants)) if wants(&outcome, sc.as_ref()) => {
            let first = log.lock().map(|l| l.clone()).unwrap_or_default();
            let start = Instant::now();
            let trials = trial_request(run);
            let suggestion = fences::search(&first, |points| fences::fenced_trial(&trials, points));
            pipeline::add_fence_search_time(&mut outcome, start.elapsed());
            Some(suggestion)
        }
        _ => None,
    };
    Ok(Checked {
        outcome,
        sc,
        x86,
        fences,
        robustness: None,
    })
}

/// The re-runs on x86 that classify a C11 failure, their time added to `outcome`'s.
fn x86_rerun(run: &Request<'_>, outcome: &mut RunReport) -> Option<X86Rerun> {
    if !pipeline::wants_x86_rerun(run.settings, outcome) {
        return None;
    }
    let x86 = pipeline::x86_rerun(run);
    pipeline::add_x86_rerun_time(outcome, &x86);
    Some(x86)
}

/// What a bound sweep is asked: the same check at each store-buffer bound.
pub struct SweepRequest<'a> {
    /// The check at every bound: its settings give all but the bound.
    pub check: CheckRequest<'a>,
    /// The bounds, in the order of the rows (0: unbounded).
    pub bounds: &'a [u32],
}

/// One bound of a sweep.
pub struct SweptRow {
    pub bound: u32,
    pub checked: Result<Checked, PipelineError>,
}

/// A sweep's rows, in the order of its bounds, each checked when it is asked for: the
/// caller may report a row before the next runs, or stop early. Each bound's
/// `--timeout` clock starts with its row; the bounds share one SC re-run.
pub struct Swept<'a> {
    request: &'a SweepRequest<'a>,
    next: usize,
    sc_memo: OnceLock<ScRerun>,
}

/// Runs the sweep `request` asks for, a row at a time.
pub fn sweep<'a>(request: &'a SweepRequest<'a>) -> Swept<'a> {
    Swept {
        request,
        next: 0,
        sc_memo: OnceLock::new(),
    }
}

impl Iterator for Swept<'_> {
    type Item = SweptRow;

    /// The next bound's row. A panic leaves the sweep at the bound after it.
    fn next(&mut self) -> Option<SweptRow> {
        let &bound = self.request.bounds.get(self.next)?;
        self.next += 1;
        let mut settings = self.request.check.run.settings.clone();
        settings.sb_bound = bound;
        settings.start_clock();
        let request = CheckRequest {
            run: Request {
                settings: &settings,
                ..self.request.check.run.clone()
            },
            ..self.request.check.clone()
        };
        Some(SweptRow {
            bound,
            checked: check_sharing(&request, Some(&self.sc_memo)),
        })
    }
}

/// The request of the fence search's trials: nothing written, progress shown as the
/// fence search.
fn trial_request<'a>(run: &Request<'a>) -> Request<'a> {
    Request {
        emit_instrumented: None,
        progress: pipeline::in_phase(&run.progress, Phase::FenceSearch),
        ..run.clone()
    }
}

/// One robustness check with candidate fences, for the fence search.
fn robustness_trial(request: &Request<'_>, fences: &[SourcePoint]) -> Result<Trial, PipelineError> {
    let report = robustness::check(request, fences)?;
    let (verdict, reason) = match &report.robustness {
        Robustness::Robust => (Verdict::Pass, None),
        Robustness::NotRobust => (Verdict::Fail, None),
        Robustness::FailsUnderSc => (
            Verdict::Error,
            Some("the program fails under sequential consistency".to_owned()),
        ),
        Robustness::Undecided(why) => (Verdict::Inconclusive, Some(why.clone())),
    };
    Ok(Trial {
        verdict,
        observations: report.observations,
        reason,
    })
}

fn check_robustness(request: &CheckRequest<'_>) -> Result<Checked, PipelineError> {
    let report = robustness::check(&request.run, &[])?;
    let start = Instant::now();
    let fences =
        (request.fences.is_some() && report.robustness == Robustness::NotRobust).then(|| {
            let trials = trial_request(&request.run);
            fences::search(&report.observations, |points| {
                robustness_trial(&trials, points)
            })
        });
    let fence_time = start.elapsed();
    let mut outcome = report.outcome();
    if fences.is_some() {
        pipeline::add_fence_search_time(&mut outcome, fence_time);
    }
    Ok(Checked {
        outcome,
        sc: None,
        x86: None,
        fences,
        robustness: Some(report),
    })
}
