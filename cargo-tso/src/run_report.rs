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

/// One search or re-run among those a check makes; each takes its time from the one
/// `--timeout` budget (`CheckSettings::start_clock`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The search that gives the verdict, under the requested memory model.
    Search,
    /// Under TSO: the search for data races, without store buffers (`pipeline`).
    RaceSearch,
    /// The SC re-run that classifies a TSO failure (or a C11 failure x86-TSO shares).
    ScRerun,
    /// The x86-TSO re-run that classifies a C11 failure.
    TsoRerun,
    /// `--suggest-fences`: the re-checks with candidate fences.
    FenceSearch,
    /// `--robustness`: the SC states collected, then the TSO states compared.
    RobustnessSc,
    RobustnessTso,
    /// `cargo tso test`: the rest of the test's wall time (compiling the test's
    /// module into the engine's form, instrumenting, replaying counterexamples).
    Other,
}

impl Phase {
    /// `race-search`, for JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Search => "search",
            Phase::RaceSearch => "race-search",
            Phase::ScRerun => "sc-rerun",
            Phase::TsoRerun => "tso-rerun",
            Phase::FenceSearch => "fence-search",
            Phase::RobustnessSc => "robustness-sc",
            Phase::RobustnessTso => "robustness-tso",
            Phase::Other => "other",
        }
    }

    /// `race search (without store buffers)`, for people.
    pub fn describe(self) -> &'static str {
        match self {
            Phase::Search => "search",
            Phase::RaceSearch => "race search without store buffers",
            Phase::ScRerun => "SC re-run",
            Phase::TsoRerun => "x86-TSO re-run",
            Phase::FenceSearch => "fence search",
            Phase::RobustnessSc => "SC states (robustness)",
            Phase::RobustnessTso => "TSO states compared (robustness)",
            Phase::Other => "loading and replaying",
        }
    }
}

/// The time and states of one phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PhaseFigures {
    pub phase: Phase,
    pub time: Duration,
    pub states: u64,
}

/// What a check establishes when its searches finish (README, Semantics: "What a limit
/// means"); a search a limit stopped establishes none of what it looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Property {
    /// Assertions, aborts, memory errors, exit status, pthread misuse.
    Errors,
    /// Uninitialised values (unless `--no-definedness`).
    Definedness,
    /// Deadlocks and non-termination.
    Hangs,
    /// Data races (unless `--races allow`).
    Races,
    /// `--robustness`.
    Robustness,
}

impl Property {
    pub fn as_str(self) -> &'static str {
        match self {
            Property::Errors => "errors",
            Property::Definedness => "definedness",
            Property::Hangs => "hangs",
            Property::Races => "races",
            Property::Robustness => "robustness",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Property::Errors => "errors (assertions, memory errors, exit status)",
            Property::Definedness => "definedness",
            Property::Hangs => "hangs (deadlock, non-termination)",
            Property::Races => "data races",
            Property::Robustness => "robustness",
        }
    }
}

/// A search a limit stopped, and what the check therefore did not establish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    pub phase: Phase,
    pub not_established: Vec<Property>,
}

impl Cut {
    /// `data races, definedness`.
    pub fn list(&self) -> String {
        self.not_established
            .iter()
            .map(|p| p.describe())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[derive(Debug, Clone, Default)]
pub struct Figures {
    pub states: u64,
    pub transitions: u64,
    /// Every phase's time together (what result lines show); `phases` splits it.
    pub time: Duration,
    pub phases: Vec<PhaseFigures>,
    pub stored_bytes: u64,
    /// The most heap the exploration held at once (store, search, states), measured on
    /// its own thread: this run's memory, whatever else the process did. With several
    /// search workers, the process's peak resident memory instead.
    pub exploration_bytes: u64,
    pub peak_memory: u64,
    /// Thread symmetry was on, and the sizes of the groups of interchangeable threads
    /// it found (None: off, by `--no-symmetry` or for the program).
    pub symmetry: Option<Vec<u32>>,
    /// Awaits were on, and the loops found (function and place; None: `--no-awaits`).
    pub awaits: Option<Vec<String>>,
}

impl Figures {
    /// The speed of the search whose states are shown (the first phase with as many).
    pub fn states_per_second(&self) -> f64 {
        let time = self
            .phases
            .iter()
            .find(|p| p.states == self.states)
            .map_or(self.time, |p| p.time);
        let secs = time.as_secs_f64();
        if secs > 0.0 {
            self.states as f64 / secs
        } else {
            0.0
        }
    }

    /// Adds a phase to the time.
    pub fn add_phase(&mut self, phase: PhaseFigures) {
        self.phases.push(phase);
        self.time = self.phases.iter().map(|p| p.time).sum();
    }

    /// Puts `earlier`'s phases before these.
    pub fn after(&mut self, earlier: &Figures) {
        let later = std::mem::replace(&mut self.phases, earlier.phases.clone());
        self.phases.extend(later);
        self.time = self.phases.iter().map(|p| p.time).sum();
    }

    /// Makes these the figures of a run that went on beside an earlier one: its time
    /// is what the check waited for it once that one had ended (the phases then still
    /// add up to the check's wall time).
    pub fn waited_for(&mut self, waited: Duration) {
        if let [phase] = &mut self.phases[..] {
            phase.time = waited;
        }
        self.time = waited;
    }

    /// Names the phases of a run that is one phase of a larger check.
    pub fn relabel(&mut self, phase: Phase) {
        for p in &mut self.phases {
            p.phase = phase;
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
    pub races: Vec<tso_engine::RaceReport>,
    /// Library functions the program calls that have no model, with a call site
    /// (listed under `-v`; `unsupported` only where a run reaches one).
    pub unmodelled: Vec<String>,
    /// A limit stopped a search: what was not established. Always set for a run made
    /// inconclusive by a limit; on a failing run, what the error's verdict leaves open
    /// (the races listed beside it may be incomplete).
    pub cut: Option<Cut>,
    /// Searching for one kind (`TSO_TEST_SHOULD_FAIL_WITH`): the other kinds met.
    pub other_kinds: Vec<ErrorKind>,
    /// How the race search looked for races (the race screen, `tso_engine::RaceScreen`;
    /// shown under `-v`).
    pub race_screen: Option<tso_engine::RaceScreen>,
    /// Where a TSO check's race search ran, when it ran (beside the TSO run or after
    /// it; shown under `-v`).
    pub race_search_placement: Option<String>,
}

impl RunReport {
    pub fn from_report(report: &CheckReport) -> RunReport {
        let cex = report.counterexample.as_ref();
        let error = report.failure.as_ref().map(|f| {
            let location = cex.and_then(|c| c.error_location.clone());
            let message = match (&location, f.kind) {
                (Some(at), ErrorKind::Assertion) => assertion_as_written(&f.message, at),
                _ => f.message.clone(),
            };
            RunError {
                kind: f.kind,
                message,
                location,
            }
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
                phases: vec![PhaseFigures {
                    phase: Phase::Search,
                    time: report.stats.time,
                    states: report.stats.states,
                }],
                stored_bytes: report.stats.stored_bytes,
                exploration_bytes: 0,
                peak_memory: report.stats.peak_rss.max(tso_engine::resources::peak_rss()),
                symmetry: report.stats.symmetry.clone(),
                awaits: report.stats.awaits.clone(),
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
            race_screen: report.race_screen.clone(),
            race_search_placement: None,
            cut: None,
            other_kinds: report.other_kinds.clone(),
        }
    }

    /// Leave out the steps that are the checker's bookkeeping.
    pub fn hide_details(&mut self) {
        self.trace.retain(|s| !s.detail);
    }

    /// Call the test by its own name wherever the report shows the symbol `tso.h` gave
    /// its function (`__tso_test_should_fail__assertion__x` → `x`): the message, the
    /// trace's actions and notes (a buffer line names a local as `function::var`), the
    /// growth diagnosis and the races' locations.
    pub fn rename_symbol(&mut self, symbol: &str, name: &str) {
        let rename = |text: &mut String| {
            if text.contains(symbol) {
                *text = text.replace(symbol, name);
            }
        };
        if let Some(f) = &mut self.error {
            rename(&mut f.message);
        }
        for step in &mut self.trace {
            rename(&mut step.action);
            step.notes.iter_mut().for_each(rename);
        }
        self.diagnosis.iter_mut().for_each(rename);
        for race in &mut self.races {
            rename(&mut race.location);
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
            cut: None,
            other_kinds: Vec::new(),
            race_screen: None,
            race_search_placement: None,
        }
    }

    /// A search that did not start: the `--timeout` budget was spent by earlier phases.
    pub fn out_of_time(reason: String, phase: Phase, not_established: Vec<Property>) -> RunReport {
        let mut report = RunReport::tool_error(ErrorKind::Unsupported, String::new());
        report.verdict = Verdict::Inconclusive;
        report.error = None;
        report.inconclusive_reason = Some(reason);
        report.figures.phases.push(PhaseFigures {
            phase,
            time: Duration::ZERO,
            states: 0,
        });
        report.cut = Some(Cut {
            phase,
            not_established,
        });
        report
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

/// What a C11 failure looks like on x86: the same check re-run under x86-TSO and,
/// when that fails too, under sequential consistency. The three models nest (every SC
/// execution is a TSO one, every TSO execution a C11 one), so a TSO pass means an SC
/// pass, and the first model that fails names what the bug needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum X86Classification {
    /// x86-TSO passes: the bug needs what C11 allows beyond x86 (ARM, POWER, the
    /// compiler).
    NeedsC11,
    /// x86-TSO fails and SC passes: x86 has the bug, through its store buffers.
    NeedsTso,
    /// SC fails too.
    FailsUnderSc,
    /// A re-run was inconclusive or could not run.
    Unknown,
}

impl X86Classification {
    pub fn sentence(self) -> &'static str {
        match self {
            X86Classification::NeedsC11 => {
                "needs C11 weakness (passes on x86): passes under x86-TSO and sequential consistency"
            }
            X86Classification::NeedsTso => {
                "fails on x86 too: fails under x86-TSO, passes under sequential consistency (needs TSO)"
            }
            X86Classification::FailsUnderSc => {
                "fails on x86 too: fails under x86-TSO and under SC too"
            }
            X86Classification::Unknown => {
                "on x86: no verdict (the x86-TSO or SC re-run was inconclusive or could not run)"
            }
        }
    }

    /// `needs-c11` / `needs-tso` / `fails-under-sc` / `unknown`, for JSON (the last
    /// three as for a TSO failure's SC re-run).
    pub fn as_str(self) -> &'static str {
        match self {
            X86Classification::NeedsC11 => "needs-c11",
            X86Classification::NeedsTso => "needs-tso",
            X86Classification::FailsUnderSc => "fails-under-sc",
            X86Classification::Unknown => "unknown",
        }
    }
}

/// The re-runs of a C11 failure on x86.
#[derive(Debug, Clone)]
pub struct X86Rerun {
    pub classification: X86Classification,
    /// The run under x86-TSO.
    pub tso: RunReport,
    /// The run under SC, made when the TSO run failed.
    pub sc: Option<RunReport>,
}

impl X86Rerun {
    /// Classifies a C11 failure from its TSO re-run and, when that failed, its SC one.
    pub fn classify(tso: RunReport, sc: Option<RunReport>) -> X86Rerun {
        let classification = match (tso.verdict, sc.as_ref().map(|s| s.verdict)) {
            (Verdict::Pass, _) => X86Classification::NeedsC11,
            (Verdict::Fail, Some(Verdict::Pass)) => X86Classification::NeedsTso,
            (Verdict::Fail, Some(Verdict::Fail)) => X86Classification::FailsUnderSc,
            _ => X86Classification::Unknown,
        };
        X86Rerun {
            classification,
            tso,
            sc,
        }
    }

    /// The re-runs, in the order they ran.
    pub fn runs(&self) -> impl Iterator<Item = &RunReport> {
        std::iter::once(&self.tso).chain(self.sc.as_ref())
    }
}

/// The assertion message with the condition as the source writes it: `assert`
/// stringizes its argument after expanding the macros in it, so `assert(COUNT(q) == 2)`
/// fails as "assertion `((q)->count_) == 2` failed". The text comes from the
/// `assert(`/`TSO_ASSERT(` call at `at` (which may span lines); the message is kept
/// when the file cannot be read or holds no such call there.
fn assertion_as_written(message: &str, at: &tso_engine::Location) -> String {
    let Some(expanded) = message
        .strip_prefix("assertion `")
        .and_then(|rest| rest.split_once("` failed"))
        .map(|(cond, _)| cond)
    else {
        return message.to_owned();
    };
    let written = crate::render::source::source_lines(&at.file, at.line, 20)
        .and_then(|from| asserted_condition(&from));
    match written {
        Some(w) if w != expanded => message.replacen(expanded, &w, 1),
        _ => message.to_owned(),
    }
}

/// The argument of the first `assert(...)` or `TSO_ASSERT(...)` that starts on the
/// first line of `text` (the failing call's line; the argument may go on), with its
/// whitespace runs made single spaces (as the preprocessor stringizes).
fn asserted_condition(text: &str) -> Option<String> {
    let first_line = text.find('\n').unwrap_or(text.len());
    let start = ["TSO_ASSERT(", "assert("]
        .iter()
        .filter_map(|m| {
            text.match_indices(m)
                .find(|(i, _)| {
                    // A whole word: not `static_assert(` or `my_assert(`.
                    *i < first_line
                        && !text[..*i]
                            .chars()
                            .next_back()
                            .is_some_and(|c| c.is_alphanumeric() || c == '_')
                })
                .map(|(i, _)| i + m.len())
        })
        .min()?;
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text[start..].char_indices() {
        match (quote, c) {
            (Some(_), _) if escaped => escaped = false,
            (Some(_), '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') if depth == 0 => {
                let cond = text[start..start + i]
                    .split_whitespace()
                    .collect::<Vec<_>>();
                return Some(cond.join(" "));
            }
            (None, ')') => depth -= 1,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_assertion_is_shown_as_written_not_macro_expanded() {
        let dir = std::env::temp_dir().join(format!("tso-assert-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_default();
        let file = dir.join("q.c");
        std::fs::write(
            &file,
            "#define COUNT(q) ((q)->count_)\nvoid f(struct q *q) {\n  assert(COUNT(q) ==\n         2 && ok(\")\"));\n}\n",
        )
        .unwrap_or_default();
        let at = tso_engine::Location::new(file.display().to_string(), 3, 3);
        let message = "assertion `((q)->count_) == 2 && ok(\")\")` failed in void f(struct q *)";
        assert_eq!(
            assertion_as_written(message, &at),
            "assertion `COUNT(q) == 2 && ok(\")\")` failed in void f(struct q *)"
        );
        // No assert call at the line (or no file): the message as it was.
        let elsewhere = tso_engine::Location::new(file.display().to_string(), 1, 1);
        assert_eq!(assertion_as_written(message, &elsewhere), message);
        let missing = tso_engine::Location::new("/nonexistent/q.c", 3, 3);
        assert_eq!(assertion_as_written(message, &missing), message);
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(
            asserted_condition("static_assert(1); TSO_ASSERT(x  >\n 1);"),
            Some("x > 1".into())
        );
    }
}
