//! One check and its follow-ups as one library call: the run, the SC re-run that
//! classifies a TSO failure, the fence search ([`crate::fences`]) and the robustness
//! check ([`crate::robustness`]). `cargo tso check` and each test of `cargo tso test`
//! build one [`CheckRequest`] and read one [`Checked`]; neither chains runs itself.

use std::sync::OnceLock;
use std::time::Instant;

use tso_engine::Verdict;
use tso_runtime::instrument::SourcePoint;
use tso_runtime::runtime::ObservationLog;

use crate::fences::{self, FenceSuggestion, Trial};
use crate::pipeline::{self, PipelineError, Request, RunExtras};
use crate::robustness::{self, Robustness, RobustnessReport};
use crate::run_report::{Phase, RunReport, ScRerun};

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
    /// The SC re-run shared by the runs of one test at several store-buffer bounds (the
    /// SC verdict does not depend on the bound); None: the check re-runs on its own.
    pub sc_memo: Option<&'a OnceLock<ScRerun>>,
}

/// What one check found.
pub struct Checked {
    /// The run that gives the verdict, with the time of every phase of the check.
    pub outcome: RunReport,
    /// The SC re-run of a TSO failure.
    pub sc: Option<ScRerun>,
    /// The fence suggestion, when fences were searched.
    pub fences: Option<FenceSuggestion>,
    /// The robustness check, when asked for.
    pub robustness: Option<RobustnessReport>,
}

/// Runs the check `request` asks for.
pub fn check(request: &CheckRequest<'_>) -> Result<Checked, PipelineError> {
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
        let (sc, ran) = match request.sc_memo {
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
        fences,
        robustness: None,
    })
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
        fences,
        robustness: Some(report),
    })
}
