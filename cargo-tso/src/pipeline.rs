//! One model-checking run: load the bitcode, instrument it for TSO (unless SC), translate
//! it to the engine's IR, register the natives, check from the entry function.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use inkwell::context::Context;
use tso_engine::{
    CheckOptions, ErrorKind, LoadError, Natives, ProgressFn, RacePolicy, StateObserver, Stats,
    Verdict,
};
use tso_runtime::instrument::{instrument_module, InstrumentError, InstrumentOptions, SourcePoint};
use tso_runtime::runtime::{register, register_c11, C11Options, ObservationLog, RuntimeOptions};

use crate::race_beside::Beside;
use crate::run_report::{
    Cut, Figures, Phase, PhaseFigures, Property, RunReport, ScClassification, ScRerun, X86Rerun,
};
use crate::settings::CheckSettings;
use crate::settings::MemoryModel;

#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error("cannot write the instrumented module to {}: {message}", path.display())]
    Emit { path: PathBuf, message: String },
    #[error("internal error: {0}")]
    Internal(String),
}

/// What to check.
#[derive(Clone)]
pub struct Request<'a> {
    pub bitcode: &'a Path,
    pub entry: &'a str,
    pub settings: &'a CheckSettings,
    pub collect_outcomes: bool,
    pub emit_instrumented: Option<&'a Path>,
    /// Called with the figures so far while the engine explores (progress display,
    /// slow-test notices).
    pub progress: Option<SnapshotFn>,
    /// `TSO_TEST_SHOULD_FAIL_WITH(kind)`: search for this kind past errors of others
    /// (`tso_engine::CheckOptions::target`).
    pub target: Option<ErrorKind>,
}

/// What `--suggest-fences` and `--robustness` add to a run (nothing by default).
#[derive(Clone, Default)]
pub struct RunExtras {
    /// Fences the pass inserts after these stores (candidate placements).
    pub fences_after: Vec<SourcePoint>,
    /// Where the runtime records the reorderings the counterexample's replay shows.
    pub observations: Option<ObservationLog>,
    /// Instrument, but run the buffers as sequential consistency (the SC side of a
    /// robustness check: same program, same state shape).
    pub sequential: bool,
    /// Sees every new state.
    pub observer: Option<StateObserver>,
    /// Told when the TSO run's answer to the race screen will not make the race search
    /// needless (`tso_engine::CheckOptions::on_screen_conflict`).
    pub on_screen_conflict: Option<tso_engine::ScreenConflictHook>,
    /// Set to stop the search (the race search beside a TSO run that no longer needs
    /// it); its report is then dropped.
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// Runs one check, with the `extras` (candidate fences, observation, SC runtime, a
/// state observer). Problems in the program (including constructs the pass or the
/// engine does not support) are verdicts; only unreadable input is an error.
///
/// Data races are a property of the C program, defined on its interleavings (see
/// `tso_engine::race`), so under TSO they are looked for in a second run of the program
/// without the TSO pass: both memory models report the same races, and the TSO run,
/// which gives the verdict, does not track them. Under SC and c11 the run itself
/// tracks them (c11: with the happens-before of the messages its loads read). That run comes after the TSO run, only
/// when it finished, and with what the `--timeout` budget left. Under `--races deny` a
/// race found there is the verdict, with its trace. A check passes only when both
/// searches finished: a race search stopped by a limit (or unable to run) leaves the
/// races open, and the check is inconclusive (or an error) however the TSO run ended,
/// except that an error the TSO run found stays a failure.
///
/// A search for one kind of error (`request.target`): the TSO run searches for it,
/// unless it is `data-race`, which the race search then searches for; a race the race
/// search finds beside the target the TSO run found is one more kind met (it does not
/// end the TSO run's paths, which track no races).
///
/// When the run's cores leave one idle (`CheckSettings::race_search_beside`), the race
/// search starts beside the TSO run as soon as that run knows it will be needed
/// (`race_beside`); the reports are those of the order above.
pub fn run_with(request: &Request<'_>, extras: &RunExtras) -> Result<RunReport, PipelineError> {
    let races = request.settings.machine.races;
    let plain_run =
        extras.fences_after.is_empty() && !extras.sequential && extras.observer.is_none();
    // Under c11 the run itself tracks races, with happens-before taken from the
    // message each load reads (`tso_engine::race` `messages.rs`), so it needs no
    // search of its own under SC. That search would find nothing more: every SC
    // execution is a c11 execution (each load reads the newest message, as the litmus
    // suite's SC ⊆ C11 checks), the c11 run visits every interleaving of its
    // transitions, and on such an execution the two runs record the same accesses with
    // the same happens-before (the same reads-from, the same rules for release and
    // acquire, fences, release sequences and the library's synchronisation), so a race
    // of the SC search is one of the c11 run on the same execution. And the c11 run
    // also reaches the races that only weak executions have.
    let single_search = matches!(
        request.settings.memory_model,
        MemoryModel::Sc | MemoryModel::C11
    );
    if races == RacePolicy::Allow || single_search {
        // One search gives the verdict and the races: no race screen (it stands in for
        // a search of races alone, `race_search`).
        let mut settings = request.settings.clone();
        settings.machine.race_screen = false;
        return run_model(
            &Request {
                settings: &settings,
                ..request.clone()
            },
            extras,
        );
    }
    if !plain_run {
        // The TSO runtime's natives record no accesses: tracking races in this run
        // would find none. Robustness searches them itself (`race_search`); a fence
        // trial needs only the verdict.
        let tso = request.settings.with_races(RacePolicy::Allow);
        return run_model(
            &Request {
                settings: &tso,
                ..request.clone()
            },
            extras,
        );
    }
    let race_target = request.target.filter(|&k| k == ErrorKind::DataRace);
    let mut tso = request.settings.with_races(RacePolicy::Allow);
    // The TSO run asks the race screen's question in its own states
    // (`tso_engine::race::screen`, "Asked in the TSO run", which needs the "+d" bypass).
    tso.machine.answer_race_screen = tso.machine.race_screen && tso.dynamic_bypass;
    let tso_request = Request {
        settings: &tso,
        target: request.target.filter(|&k| k != ErrorKind::DataRace),
        ..request.clone()
    };
    let (mut outcome, beside) = if request.settings.race_search_beside() {
        match crate::race_beside::tso_run_and_race_search(
            request,
            &tso_request,
            extras,
            race_target,
        )? {
            Some(ran) => ran,
            // The two searches shared a memory limit the TSO run reached: alone, it
            // may not reach it.
            None => (run_model(&tso_request, extras)?, Beside::SharedMemory),
        }
    } else {
        (run_model(&tso_request, extras)?, Beside::NotPlanned)
    };
    // What the race screen says is the race search's to report, unless the TSO run's
    // answer makes that search needless.
    let answered = outcome.race_screen.take();
    if !race_search_wanted(&outcome, answered.as_ref(), race_target) {
        if !matches!(outcome.verdict, Verdict::Pass | Verdict::Fail) {
            if let Some(cut) = &mut outcome.cut {
                // The race search never ran.
                cut.not_established.push(Property::Races);
            }
        } else {
            // Every state of the program under SC has one of the TSO run's thread
            // states, none of which holds two conflicting next accesses: no race, and
            // no race search.
            outcome.race_screen = answered;
        }
        return Ok(outcome);
    }
    let placement = crate::race_beside::placement(request.settings, &beside);
    let race_run = match beside {
        Beside::Ran(race_run) => *race_run,
        Beside::NotPlanned | Beside::NotStarted | Beside::SharedMemory => {
            race_search(request, race_target)?
        }
    };
    let mut outcome = with_race_search(request, outcome, race_run, race_target);
    outcome.race_search_placement = Some(placement);
    Ok(outcome)
}

/// Whether the TSO run's outcome (with the race screen's answer taken out of it) calls
/// for the race search: it finished (a limit or an error of the tool leaves the races
/// open), and its answer to the screen does not rule races out (or the search is for
/// races).
pub(crate) fn race_search_wanted(
    tso: &RunReport,
    answered: Option<&tso_engine::RaceScreen>,
    race_target: Option<ErrorKind>,
) -> bool {
    match tso.verdict {
        Verdict::Pass => {
            race_target.is_some() || answered != Some(&tso_engine::RaceScreen::NoConflict)
        }
        Verdict::Fail => true,
        Verdict::Inconclusive | Verdict::Error => false,
    }
}

/// The TSO run's outcome (a pass or a failure) with the race search's (`race_target`:
/// the kind the race search searched for).
fn with_race_search(
    request: &Request<'_>,
    mut outcome: RunReport,
    mut race_run: RunReport,
    race_target: Option<ErrorKind>,
) -> RunReport {
    race_run.figures.after(&outcome.figures);
    if let Some(target) = request.target {
        // What each search met (the other's verdict included) is met by the check.
        let mut met = outcome.other_kinds.clone();
        met.extend(race_run.other_kinds.iter().copied());
        met.extend(
            [&outcome, &race_run]
                .iter()
                .filter(|r| r.verdict == Verdict::Fail)
                .filter_map(|r| r.error.as_ref().map(|e| e.kind))
                .filter(|&k| k != target),
        );
        met.sort();
        met.dedup();
        outcome.other_kinds = met.clone();
        race_run.other_kinds = met;
        if race_target.is_none() && outcome.error.as_ref().is_some_and(|e| e.kind == target) {
            // The target is reachable under TSO: a race beside it is only met.
            outcome.figures.time = race_run.figures.time;
            outcome.figures.phases = race_run.figures.phases;
            if matches!(race_run.verdict, Verdict::Inconclusive | Verdict::Error) {
                outcome.cut = Some(Cut {
                    phase: Phase::RaceSearch,
                    not_established: vec![Property::Races],
                });
            }
            outcome.races = race_run.races;
            outcome.race_screen = race_run.race_screen;
            return outcome;
        }
    }
    combine_race_search(outcome, race_run)
}

/// What a running check reports now and then: the phase it is in, the engine's
/// figures for that phase's search, and the heap the search holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub phase: Phase,
    pub states: u64,
    /// Time of this phase's search so far.
    pub time: std::time::Duration,
    /// The deepest path so far (depth-first search; 0 when not known).
    pub depth: u64,
    pub memory: u64,
    /// The growth diagnosis of the path the search was on after
    /// `tso_engine::explore::GROWTH_AFTER` (depth-first search only).
    pub growing: Option<std::sync::Arc<tso_engine::Diagnosis>>,
}

impl Snapshot {
    /// States per second of this phase's search, once it has run for a while.
    pub fn rate(&self) -> Option<u64> {
        let seconds = self.time.as_secs_f64();
        (seconds > 0.0).then(|| (self.states as f64 / seconds) as u64)
    }
}

pub type SnapshotFn = std::sync::Arc<dyn Fn(&Snapshot) + Send + Sync>;

/// `progress` for a run that is phase `phase` of a larger check (its own searches
/// report `Phase::Search`).
pub fn in_phase(progress: &Option<SnapshotFn>, phase: Phase) -> Option<SnapshotFn> {
    let progress = progress.clone()?;
    Some(std::sync::Arc::new(move |snapshot: &Snapshot| {
        progress(&Snapshot {
            phase,
            ..snapshot.clone()
        })
    }))
}

/// The search for data races of a TSO check: the program without the TSO pass, races
/// tracked as the settings say (searching for `target` past other kinds, if given).
/// A limit that stops it leaves only the races open. Unless `--no-race-screen`, the
/// engine screens first (`tso_engine::race::screen`): a program whose states never
/// hold two conflicting next accesses has no race and needs no access histories.
pub fn race_search(
    request: &Request<'_>,
    target: Option<ErrorKind>,
) -> Result<RunReport, PipelineError> {
    race_search_with(request, target, &RunExtras::default())
}

/// [`race_search`] with `extras` (a cancel flag).
pub(crate) fn race_search_with(
    request: &Request<'_>,
    target: Option<ErrorKind>,
    extras: &RunExtras,
) -> Result<RunReport, PipelineError> {
    let mut sc = request.settings.under_sc();
    // A hang under SC is one under TSO too, and the TSO run looked for hangs.
    sc.machine.hangs = false;
    let race_request = Request {
        settings: &sc,
        collect_outcomes: false,
        emit_instrumented: None,
        progress: in_phase(&request.progress, Phase::RaceSearch),
        target,
        ..request.clone()
    };
    let mut race_run = run_model(&race_request, extras)?;
    race_run.figures.relabel(Phase::RaceSearch);
    if race_run.cut.is_some() {
        race_run.cut = Some(Cut {
            phase: Phase::RaceSearch,
            not_established: vec![Property::Races],
        });
    }
    Ok(race_run)
}

/// The TSO run's outcome (a pass or a failure) with the race search's: which verdict
/// the check gives, and what stays open. The figures shown are the TSO run's unless
/// the race search gives the verdict; the time is both.
fn combine_race_search(mut tso: RunReport, race_run: RunReport) -> RunReport {
    tso.race_screen = race_run.race_screen.clone();
    let time = race_run.figures.time;
    let phases = race_run.figures.phases.clone();
    let found_race = race_run
        .error
        .as_ref()
        .is_some_and(|f| f.kind == ErrorKind::DataRace);
    match race_run.verdict {
        Verdict::Fail if found_race => {
            let mut race = race_run;
            if let Some(f) = &mut race.error {
                f.message.push_str(
                    " (races are checked on the program's interleavings, without store buffers)",
                );
            }
            return race;
        }
        // Another error under SC: it is real, and it is the verdict of a check the TSO
        // run passed (SC runs are TSO runs).
        Verdict::Fail if tso.verdict == Verdict::Pass => return race_run,
        // Without store buffers the program ran into no race before its other error:
        // the TSO failure is the verdict.
        Verdict::Fail | Verdict::Pass => tso.races = race_run.races,
        Verdict::Inconclusive | Verdict::Error => {
            tso.races = race_run.races.clone();
            tso.cut = Some(Cut {
                phase: Phase::RaceSearch,
                not_established: vec![Property::Races],
            });
            if tso.verdict == Verdict::Pass {
                // No race has been ruled out: the check is not a pass.
                let mut open = race_run;
                open.cut = tso.cut.take();
                open.figures = Figures {
                    time,
                    phases,
                    ..tso.figures
                };
                open.output = tso.output;
                open.outcomes = tso.outcomes;
                return open;
            }
        }
    }
    tso.figures.time = time;
    tso.figures.phases = phases;
    tso
}

/// One run under the request's memory model, tracking races as its settings say, with
/// what is left of the `--timeout` budget (none left: inconclusive without a search).
pub(crate) fn run_model(
    request: &Request<'_>,
    extras: &RunExtras,
) -> Result<RunReport, PipelineError> {
    let searched = request.settings.searched_properties();
    if let Some(reason) = request.settings.out_of_time() {
        return Ok(RunReport::out_of_time(reason, Phase::Search, searched));
    }
    let context = Context::create();
    let module = tso_engine::parse_module(&context, request.bitcode)?;
    let mut natives = Natives::standard();
    if request.settings.memory_model != MemoryModel::Sc {
        let c11 = request.settings.memory_model == MemoryModel::C11;
        let options = InstrumentOptions {
            static_locals: request.settings.static_locals,
            fences_after: extras.fences_after.clone(),
            keep_orders: c11,
        };
        if let Err(error) = instrument_module(&module, &options) {
            // Every pass error means the tool could not check this program (exit 2).
            let error: InstrumentError = error;
            return Ok(RunReport::tool_error(
                ErrorKind::Unsupported,
                format!("{INSTRUMENTATION_FAILED}{error}"),
            ));
        }
        if c11 {
            register_c11(
                &mut natives,
                &C11Options {
                    history_bound: request.settings.history_bound,
                },
            );
        } else {
            register(
                &mut natives,
                &RuntimeOptions {
                    sb_bound: request.settings.sb_bound,
                    dynamic_bypass: request.settings.dynamic_bypass,
                    reference_machine: request.settings.reference_machine,
                    sequential: extras.sequential,
                    observations: extras.observations.clone(),
                },
            );
        }
    }
    if let Some(path) = request.emit_instrumented {
        module
            .print_to_file(path)
            .map_err(|e| PipelineError::Emit {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
    }
    let program = tso_engine::translate(&module);
    let (report, exploration_bytes) = crate::memory_use::peak_during(|joiner| {
        let limits = tso_engine::Limits {
            stop: stop_check(request.settings, joiner, extras.cancel.clone()),
            ..request.settings.limits.clone()
        };
        let joiner = joiner.clone();
        let options = CheckOptions {
            entry: request.entry.to_owned(),
            machine: request.settings.machine.clone(),
            limits,
            collect_outcomes: request.collect_outcomes,
            progress: request.progress.clone().map(|report| {
                let joiner = joiner.clone();
                std::sync::Arc::new(move |stats: &Stats| {
                    report(&Snapshot {
                        phase: Phase::Search,
                        states: stats.states,
                        time: stats.time,
                        depth: stats.max_depth,
                        memory: joiner.live(),
                        growing: stats.growing.clone(),
                    })
                }) as ProgressFn
            }),
            jobs: request.settings.jobs,
            observer: extras.observer.clone(),
            // The search's workers count for this run's memory.
            worker_start: Some(std::sync::Arc::new(move || {
                Box::new(joiner.join_this_thread()) as Box<dyn std::any::Any>
            })),
            target: request.target,
            on_screen_conflict: extras.on_screen_conflict.clone(),
        };
        tso_engine::check(&program, &natives, &options)
    });
    let mut outcome = RunReport::from_report(&report);
    outcome.figures.exploration_bytes = exploration_bytes;
    if outcome.verdict == Verdict::Inconclusive {
        outcome.cut = Some(Cut {
            phase: Phase::Search,
            not_established: searched,
        });
    }
    if !request.settings.show_details {
        outcome.hide_details();
    }
    Ok(outcome)
}

/// The reason to stop that the engine cannot see for itself: the user interrupted the
/// run, or this test's exploration holds more heap than its budget (`memory_use`: the
/// run's own account, so tests side by side do not count for each other).
fn stop_check(
    settings: &CheckSettings,
    joiner: &crate::memory_use::Joiner,
    cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
) -> Option<tso_engine::StopCheck> {
    if settings.interrupt.is_none() && settings.test_memory.is_none() && cancel.is_none() {
        return None;
    }
    let interrupt = settings.interrupt.clone();
    let budget = settings.test_memory;
    let joiner = joiner.clone();
    Some(tso_engine::StopCheck(std::sync::Arc::new(move || {
        if interrupt
            .as_ref()
            .is_some_and(|i| i.load(std::sync::atomic::Ordering::Relaxed))
        {
            return Some(INTERRUPTED.to_owned());
        }
        if cancel
            .as_ref()
            .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
        {
            // Never shown: the report of a cancelled search is dropped.
            return Some("cancelled".to_owned());
        }
        let max = budget?;
        (joiner.live() >= max).then(|| {
            format!(
                "max-memory {} reached (this test's exploration)",
                tso_engine::resources::format_bytes(max)
            )
        })
    })))
}

/// The reason of a search stopped by Ctrl-C or SIGTERM.
pub const INTERRUPTED: &str = "interrupted";

/// Runs `request` inside a panic guard: a panic becomes [`PipelineError::Internal`].
pub fn run_guarded(request: &Request<'_>) -> Result<RunReport, PipelineError> {
    run_guarded_with(request, &RunExtras::default())
}

/// How the message of a run starts when the TSO pass refused the module: nothing of
/// the module was checked, whichever function the construct is in.
const INSTRUMENTATION_FAILED: &str = "TSO instrumentation: ";

/// Whether `report` is a run the TSO pass refused (see [`INSTRUMENTATION_FAILED`]).
pub fn instrumentation_refused(report: &RunReport) -> bool {
    report.verdict == Verdict::Error
        && report.error.as_ref().is_some_and(|e| {
            e.kind == ErrorKind::Unsupported && e.message.starts_with(INSTRUMENTATION_FAILED)
        })
}

/// Whether the TSO pass refuses the module at `bitcode` on its own (the same pass and
/// options as a run): says which of several linked sources brought a construct in.
pub fn refuses_instrumentation(bitcode: &Path, settings: &CheckSettings) -> bool {
    let context = Context::create();
    let Ok(module) = tso_engine::parse_module(&context, bitcode) else {
        return false;
    };
    let options = InstrumentOptions {
        static_locals: settings.static_locals,
        fences_after: Vec::new(),
        keep_orders: false,
    };
    instrument_module(&module, &options).is_err()
}

/// [`run_with`] inside a panic guard.
pub fn run_guarded_with(
    request: &Request<'_>,
    extras: &RunExtras,
) -> Result<RunReport, PipelineError> {
    match catch_unwind(AssertUnwindSafe(|| run_with(request, extras))) {
        Ok(result) => result,
        Err(payload) => Err(PipelineError::Internal(panic_message(payload.as_ref()))),
    }
}

/// Re-runs a TSO failure under SC, to say whether the bug needs TSO (races, already
/// looked for, are left out: this run only classifies the failure).
pub fn sc_rerun(request: &Request<'_>) -> ScRerun {
    let outcome = rerun_under(request, MemoryModel::Sc, Phase::ScRerun);
    ScRerun {
        classification: ScClassification::from_verdict(outcome.verdict),
        outcome,
    }
}

/// Re-runs a C11 failure under x86-TSO and, when that fails too, under SC, to say
/// whether the bug needs C11 weakness or happens on x86 too. As [`sc_rerun`]: races
/// are left out, and the runs take what the `--timeout` budget left (none left:
/// inconclusive, and the classification unknown).
pub fn x86_rerun(request: &Request<'_>) -> X86Rerun {
    let tso = rerun_under(request, MemoryModel::Tso, Phase::TsoRerun);
    let sc = (tso.verdict == Verdict::Fail)
        .then(|| rerun_under(request, MemoryModel::Sc, Phase::ScRerun));
    X86Rerun::classify(tso, sc)
}

/// `request` run again under `model`, races allowed and nothing else asked (no
/// outcomes, no target), as phase `phase`. A run that could not be made is an error
/// verdict (a classification then says it does not know).
fn rerun_under(request: &Request<'_>, model: MemoryModel, phase: Phase) -> RunReport {
    let settings = CheckSettings {
        memory_model: model,
        ..request.settings.with_races(RacePolicy::Allow)
    };
    let rerun = Request {
        settings: &settings,
        collect_outcomes: false,
        emit_instrumented: None,
        progress: in_phase(&request.progress, phase),
        target: None,
        ..request.clone()
    };
    match run_guarded(&rerun) {
        Ok(mut outcome) => {
            outcome.figures.relabel(phase);
            outcome
        }
        Err(error) => RunReport::tool_error(ErrorKind::Unsupported, error.to_string()),
    }
}

/// Adds the SC re-run's time to `outcome` (the check's time covers every phase).
pub fn add_sc_rerun_time(outcome: &mut RunReport, sc: &ScRerun) {
    for phase in &sc.outcome.figures.phases {
        outcome.figures.add_phase(*phase);
    }
}

/// Adds the time of a C11 failure's re-runs on x86 to `outcome`.
pub fn add_x86_rerun_time(outcome: &mut RunReport, x86: &X86Rerun) {
    for phase in x86.runs().flat_map(|run| &run.figures.phases) {
        outcome.figures.add_phase(*phase);
    }
}

/// Adds the fence search's time to `outcome`.
pub fn add_fence_search_time(outcome: &mut RunReport, time: std::time::Duration) {
    outcome.figures.add_phase(PhaseFigures {
        phase: Phase::FenceSearch,
        time,
        states: 0,
    });
}

/// Makes `outcome`'s time the test's wall time `wall`: what its phases do not cover
/// becomes the phase `other`.
pub fn add_other_time(outcome: &mut RunReport, wall: std::time::Duration) {
    let rest = wall.saturating_sub(outcome.figures.time);
    if !rest.is_zero() {
        outcome.figures.add_phase(PhaseFigures {
            phase: Phase::Other,
            time: rest,
            states: 0,
        });
    }
    outcome.figures.time = outcome.figures.time.max(wall);
}

/// Whether a run's result calls for the SC re-run.
pub fn wants_sc_rerun(settings: &CheckSettings, outcome: &RunReport) -> bool {
    settings.memory_model == MemoryModel::Tso
        && outcome.verdict == Verdict::Fail
        // A data race was found without store buffers already.
        && outcome
            .error
            .as_ref()
            .is_none_or(|f| f.kind != ErrorKind::DataRace)
}

/// Whether a run's result calls for the re-runs on x86: a C11 failure other than a
/// data race (found on the program's interleavings already, and undefined behaviour
/// wherever it runs).
pub fn wants_x86_rerun(settings: &CheckSettings, outcome: &RunReport) -> bool {
    settings.memory_model == MemoryModel::C11
        && outcome.verdict == Verdict::Fail
        && outcome
            .error
            .as_ref()
            .is_none_or(|f| f.kind != ErrorKind::DataRace)
}

pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_owned()
    }
}

/// The engine may recurse deeply on big programs; give it room.
pub const WORKER_STACK_SIZE: usize = 256 << 20;

/// Runs `f` on a fresh thread with a large stack and waits for it.
pub fn on_large_stack<T: Send>(f: impl FnOnce() -> T + Send) -> Result<T, PipelineError> {
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("tso-check".into())
            .stack_size(WORKER_STACK_SIZE)
            .spawn_scoped(scope, f)
            .map_err(|e| PipelineError::Internal(format!("cannot start a checker thread: {e}")))?;
        handle
            .join()
            .map_err(|payload| PipelineError::Internal(panic_message(payload.as_ref())))
    })
}

/// Silences the default panic message (we report panics ourselves as internal errors).
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|_| {}));
}
