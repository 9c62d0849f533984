//! The result of one model-checking run as the reporters need it: the engine's report
//! with the failure located, the figures gathered and the trace steps as the engine
//! recorded them (`tso_engine::TraceStep`, the one trace-step type).

use std::collections::BTreeSet;
use std::time::Duration;

use tso_engine::{CheckReport, ErrorKind, Location, TraceStep, Verdict};

/// The error a run found in the program, or that stopped it from running (the JSON
/// `error` field), where the failing thread stopped.
#[derive(Debug, Clone)]
pub struct RunError {
    pub kind: ErrorKind,
    pub message: String,
    pub location: Option<Location>,
}

#[derive(Debug, Clone, Default)]
pub struct Figures {
    pub states: u64,
    pub transitions: u64,
    pub time: Duration,
    pub stored_bytes: u64,
    /// The most heap the exploration held at once (store, search, states), measured on
    /// its own thread: this run's memory, whatever else the process did. With several
    /// search workers, the process's peak resident memory instead.
    pub exploration_bytes: u64,
    pub peak_memory: u64,
    /// Thread symmetry was on, and the sizes of the groups of interchangeable threads
    /// it found (None: off, by `--no-symmetry` or for the program).
    pub symmetry: Option<Vec<u32>>,
}

impl Figures {
    pub fn states_per_second(&self) -> f64 {
        let secs = self.time.as_secs_f64();
        if secs > 0.0 {
            self.states as f64 / secs
        } else {
            0.0
        }
    }
}

/// One run's verdict with everything needed to report it.
#[derive(Debug, Clone)]
pub struct RunReport {
    pub verdict: Verdict,
    pub error: Option<RunError>,
    pub trace: Vec<TraceStep>,
    pub inconclusive_reason: Option<String>,
    pub figures: Figures,
    pub output: String,
    pub outcomes: BTreeSet<String>,
    /// For an inconclusive run: why it probably never ends (see
    /// `tso_engine::explore::diagnosis`), one line each.
    pub diagnosis: Vec<String>,
    /// Data races found (`--races warn`): reported beside the verdict.
    pub races: Vec<tso_engine::interp::RaceReport>,
    /// Library functions the program calls that have no model, with a call site
    /// (listed under `-v`; `unsupported` only where a run reaches one).
    pub unmodelled: Vec<String>,
}

impl RunReport {
    pub fn from_report(report: &CheckReport) -> RunReport {
        let cex = report.counterexample.as_ref();
        let error = report.failure.as_ref().map(|f| RunError {
            kind: f.kind,
            message: f.message.clone(),
            location: cex.and_then(|c| c.error_location.clone()),
        });
        let trace = cex.map(|c| c.steps.clone()).unwrap_or_default();
        RunReport {
            verdict: report.verdict,
            error,
            trace,
            inconclusive_reason: report.inconclusive_reason.clone(),
            figures: Figures {
                states: report.stats.states,
                transitions: report.stats.transitions,
                time: report.stats.time,
                stored_bytes: report.stats.stored_bytes,
                exploration_bytes: 0,
                peak_memory: report.stats.peak_rss.max(tso_engine::resources::peak_rss()),
                symmetry: report.stats.symmetry.clone(),
            },
            output: report.output.clone(),
            outcomes: report.outcomes.clone(),
            diagnosis: report
                .diagnosis
                .as_ref()
                .map(|d| d.lines(report.stats.max_depth))
                .unwrap_or_default(),
            races: report.races.clone(),
            unmodelled: report.unmodelled.clone(),
        }
    }

    /// Leave out the steps that are the checker's bookkeeping.
    pub fn hide_details(&mut self) {
        self.trace.retain(|s| !s.detail);
    }

    /// Call the test by its own name where the message or the trace shows the symbol
    /// `tso.h` gave its function (`__tso_test_should_fail__assertion__x` → `x`).
    pub fn rename_symbol(&mut self, symbol: &str, name: &str) {
        if let Some(f) = &mut self.error {
            f.message = f.message.replace(symbol, name);
        }
        for step in &mut self.trace {
            step.action = step.action.replace(symbol, name);
        }
    }

    /// A run that could not happen (load or instrumentation failed).
    pub fn tool_error(kind: ErrorKind, message: String) -> RunReport {
        RunReport {
            verdict: Verdict::Error,
            error: Some(RunError {
                kind,
                message,
                location: None,
            }),
            trace: Vec::new(),
            inconclusive_reason: None,
            figures: Figures::default(),
            output: String::new(),
            outcomes: BTreeSet::new(),
            diagnosis: Vec::new(),
            races: Vec::new(),
            unmodelled: Vec::new(),
        }
    }
}

/// What a TSO failure looks like under sequential consistency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScClassification {
    /// The SC run passes: the bug needs store buffering.
    NeedsTso,
    /// The SC run fails too.
    FailsUnderSc,
    /// The SC run was inconclusive or could not run.
    Unknown,
}

impl ScClassification {
    pub fn from_verdict(verdict: Verdict) -> ScClassification {
        match verdict {
            Verdict::Pass => ScClassification::NeedsTso,
            Verdict::Fail => ScClassification::FailsUnderSc,
            Verdict::Inconclusive | Verdict::Error => ScClassification::Unknown,
        }
    }

    pub fn sentence(self) -> &'static str {
        match self {
            ScClassification::NeedsTso => "needs TSO: passes under sequential consistency",
            ScClassification::FailsUnderSc => "fails under SC too",
            ScClassification::Unknown => {
                "under sequential consistency: no verdict (the SC re-run was inconclusive or could not run)"
            }
        }
    }

    /// `needs-tso` / `fails-under-sc` / `unknown`, for JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            ScClassification::NeedsTso => "needs-tso",
            ScClassification::FailsUnderSc => "fails-under-sc",
            ScClassification::Unknown => "unknown",
        }
    }
}

/// The SC re-run of a TSO failure.
#[derive(Debug, Clone)]
pub struct ScRerun {
    pub classification: ScClassification,
    pub outcome: RunReport,
}
