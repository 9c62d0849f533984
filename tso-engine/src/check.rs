//! The one-call API: check a program and get a report.

use crate::error::Failure;
use crate::explore::{
    self, Conclusion, Counterexample, ExploreOptions, Limits, ScreenConflictHook, Stats,
};
use crate::interp::{Machine, MachineOptions};
use crate::ir::Program;
use crate::natives::Natives;
use std::collections::BTreeSet;

#[derive(Clone)]
pub struct CheckOptions {
    /// The function to run as the main thread (`main`, or a test function).
    pub entry: String,
    pub machine: MachineOptions,
    pub limits: Limits,
    pub collect_outcomes: bool,
    /// Called now and then with the figures so far.
    pub progress: Option<crate::explore::ProgressFn>,
    /// Workers exploring the state space (the same states and verdict for any number).
    pub jobs: usize,
    /// Sees every new state (see [`crate::explore::StateObserver`]).
    pub observer: Option<crate::explore::StateObserver>,
    /// Run first on each worker thread of the search (see [`crate::explore::WorkerStart`]).
    pub worker_start: Option<crate::explore::WorkerStart>,
    /// Search for an error of this kind: an error of another kind ends its path
    /// instead of the search (`explore::observers::Target`). The report then fails
    /// with this kind when it is reachable; when it is not, with the shortest error of
    /// another kind; `other_kinds` lists what the search met.
    pub target: Option<crate::ErrorKind>,
    /// Told once when this check's answer to the race screen
    /// (`MachineOptions::answer_race_screen`) is known not to be
    /// [`RaceScreen::NoConflict`] (see [`ScreenConflictHook`]).
    pub on_screen_conflict: Option<ScreenConflictHook>,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            entry: "main".into(),
            machine: MachineOptions::default(),
            limits: Limits::default(),
            collect_outcomes: false,
            progress: None,
            jobs: 1,
            observer: None,
            worker_start: None,
            target: None,
            on_screen_conflict: None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Fail,
    Inconclusive,
    /// The tool could not check the program (unsupported construct, no entry point).
    Error,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Error => "error",
        }
    }
}

#[derive(Clone, Debug)]
pub struct CheckReport {
    pub verdict: Verdict,
    pub failure: Option<Failure>,
    pub counterexample: Option<Counterexample>,
    pub inconclusive_reason: Option<String>,
    pub stats: Stats,
    /// Output of the failing path, or of the first complete execution.
    pub output: String,
    pub outcomes: BTreeSet<String>,
    /// For a run stopped by a limit: what grew along the path it stopped on.
    pub diagnosis: Option<explore::diagnosis::Diagnosis>,
    /// Data races found (`--races warn`), one per memory location, sorted.
    pub races: Vec<crate::interp::RaceReport>,
    /// C library functions the program calls that the checker does not model, with
    /// their first call site: `unsupported` only if a run reaches one.
    pub unmodelled: Vec<String>,
    /// With `CheckOptions::target`: the kinds of the other errors the search met, each
    /// ending its path.
    pub other_kinds: Vec<crate::ErrorKind>,
    /// With `MachineOptions::race_screen`: what the race screen did.
    pub race_screen: Option<RaceScreen>,
}

/// What the race screen (`race::screen`) did in a check that looks for races.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RaceScreen {
    /// It found no two conflicting next accesses in any state: no race, and no
    /// history-based search.
    NoConflict,
    /// It found two (or stopped without a pass): the history-based search gave the result.
    Conflict,
    /// It does not decide this program's races (the reason): the history-based search
    /// ran alone.
    NotApplicable(String),
}

impl RaceScreen {
    /// For `-v`: how races were looked for.
    pub fn describe(&self) -> String {
        match self {
            RaceScreen::NoConflict => {
                "races: no two threads' next accesses conflict in any state (no race; \
                 access histories not needed)"
                    .to_owned()
            }
            RaceScreen::Conflict => "races: two threads' next accesses conflict in some \
                 state; the races were then looked for with access histories"
                .to_owned(),
            RaceScreen::NotApplicable(why) => format!(
                "races: looked for with access histories ({why}: conflicting next accesses \
                 would not show every race)"
            ),
        }
    }
}

/// Model-check `program` from `opts.entry`.
///
/// With `MachineOptions::race_screen` and races looked for, the race screen
/// (`race::screen`) searches first, without race data; only when it finds two
/// conflicting next accesses (or does not pass) does the history-based search run, with
/// what is left of the time budget. A screen that passes is the report: no race.
pub fn check(program: &Program, natives: &Natives, opts: &CheckOptions) -> CheckReport {
    // Races tracked as the options say, with no screen.
    let history = |opts: &CheckOptions| {
        check_one(
            program,
            natives,
            &CheckOptions {
                machine: MachineOptions {
                    race_screen: false,
                    answer_race_screen: false,
                    ..opts.machine.clone()
                },
                ..opts.clone()
            },
        )
    };
    if opts.machine.dpor {
        // Dynamic partial-order reduction stores fewer states: the race screen and a
        // state observer need every state (`explore::dpor`, "Properties"), so it is off
        // for an observer, and races are tracked without a screen.
        if opts.observer.is_some() {
            let mut full = opts.clone();
            full.machine.dpor = false;
            full.machine.named_lifecycle = true;
            return check(program, natives, &full);
        }
        screen_gave_up(opts);
        return history(opts);
    }
    let applies = || {
        if opts.target.is_some() || opts.observer.is_some() {
            Err("a search for one kind of error".to_owned())
        } else {
            crate::race::screen::applies(program, &|name| natives.get(name)?.program_accesses)
        }
    };
    let untracked = opts.machine.races == crate::race::RacePolicy::Allow;
    if opts.machine.answer_race_screen && untracked {
        // This search asks the screen's question in every state besides its own work.
        if let Err(why) = applies() {
            screen_gave_up(opts);
            let mut report = history(opts);
            report.race_screen = Some(RaceScreen::NotApplicable(why));
            return report;
        }
        return check_one(
            program,
            natives,
            &CheckOptions {
                machine: MachineOptions {
                    race_screen: true,
                    persistent_sets: false,
                    ..opts.machine.clone()
                },
                ..opts.clone()
            },
        );
    }
    if !opts.machine.race_screen || untracked {
        return history(opts);
    }
    let applies = applies();
    if let Err(why) = applies {
        let mut report = history(opts);
        report.race_screen = Some(RaceScreen::NotApplicable(why));
        return report;
    }
    let started = std::time::Instant::now();
    let screened = check_one(
        program,
        natives,
        &CheckOptions {
            machine: MachineOptions {
                races: crate::race::RacePolicy::Allow,
                persistent_sets: false,
                ..opts.machine.clone()
            },
            ..opts.clone()
        },
    );
    if screened.verdict == Verdict::Pass && screened.race_screen == Some(RaceScreen::NoConflict) {
        return screened;
    }
    let mut report = history(&CheckOptions {
        limits: Limits {
            deadline: opts.limits.deadline_from(started),
            ..opts.limits.clone()
        },
        ..opts.clone()
    });
    report.stats.time += screened.stats.time;
    report.race_screen = Some(RaceScreen::Conflict);
    report
}

/// Tells `opts.on_screen_conflict` that this check, which would answer the race screen,
/// runs without the screen.
fn screen_gave_up(opts: &CheckOptions) {
    if opts.machine.answer_race_screen {
        if let Some(hook) = &opts.on_screen_conflict {
            hook();
        }
    }
}

/// One search of `program`; with `race_screen` set and races not tracked, the race
/// screen's search (`check` gives it these options only).
fn check_one(program: &Program, natives: &Natives, opts: &CheckOptions) -> CheckReport {
    let mut pinned = crate::store::symmetry::handles_pin_every_thread(program, &opts.entry);
    let mut machine = Machine::new(
        program,
        natives,
        MachineOptions {
            outputs_visible: opts.collect_outcomes,
            // Race data is renamed with the threads (`race/permute.rs`).
            // Not with dynamic partial-order reduction (`explore::dpor`): the path's
            // clocks and backtrack sets name threads as the states below do.
            symmetry: opts.machine.symmetry && !opts.machine.dpor && symmetry_applies(program),
            ..opts.machine.clone()
        },
    );
    // The slots of `main`'s array of joined handles are sorted (`store/symmetry.rs`,
    // "Joining the array in another order"): symmetry stays on, sleep sets go off.
    // Not for a caller that checks each stored state (robustness): a sorted state need
    // not be one the program reaches.
    let join_array = (machine.opts.symmetry
        && !machine.opts.dpor
        && machine.opts.join_slots
        && opts.observer.is_none()
        && !machine.opts.uses_persistent_sets())
    .then(|| {
        crate::store::symmetry::JoinArray::find(program, &opts.entry, |f| machine.call_kind(f))
    })
    .flatten();
    if join_array.is_some() {
        pinned = false;
        machine.opts.por = false;
        machine.join_array = join_array;
    } else if pinned {
        machine.opts.symmetry = false;
    }
    let Some(entry) = program
        .function(&opts.entry)
        .filter(|&f| program.functions[f as usize].body.is_some())
    else {
        return empty_report(
            Verdict::Error,
            Some(Failure::unsupported(format!(
                "no function `{}` to run",
                opts.entry
            ))),
        );
    };
    // A call that could not even be linked is reported before any exploration, whether
    // or not a path reaches it; a library function without a model only when reached.
    let unresolved = crate::undefined::unresolved_functions(program, natives);
    let unmodelled: Vec<String> = unresolved.unmodelled.iter().map(|u| u.listing()).collect();
    let undefined = unresolved.defined_nowhere;
    if !undefined.is_empty() {
        let message = match undefined.as_slice() {
            [one] => one.sentence(),
            many => format!(
                "{} called functions have no definition:\n{}",
                many.len(),
                many.iter()
                    .map(|u| format!("  - {}", u.sentence()))
                    .collect::<Vec<_>>()
                    .join("\n")
            ),
        };
        return CheckReport {
            unmodelled,
            ..empty_report(Verdict::Error, Some(Failure::unsupported(message)))
        };
    }
    let initial = match machine.initial_state(entry) {
        Ok(s) => s,
        Err(f) => {
            return CheckReport {
                unmodelled,
                ..empty_report(Verdict::Error, Some(f))
            }
        }
    };
    let eopts = ExploreOptions {
        limits: opts.limits.clone(),
        collect_outcomes: opts.collect_outcomes,
        progress: opts.progress.clone(),
        jobs: opts.jobs,
        observer: opts.observer.clone(),
        worker_start: opts.worker_start.clone(),
        target: opts.target,
        on_screen_conflict: opts
            .on_screen_conflict
            .clone()
            .filter(|_| machine.opts.answer_race_screen),
    };
    let mut result = explore::explore(&machine, initial.clone(), &eopts);
    let mut report = empty_report(Verdict::Pass, None);
    report.unmodelled = unmodelled;
    // Taken before any replay, which could only find the same races again.
    report.races = machine
        .races_found
        .lock()
        .map(|found| found.values().cloned().collect())
        .unwrap_or_default();
    report.other_kinds = result.met.iter().copied().collect();
    if result.conclusion == Conclusion::Pass && !result.met.is_empty() {
        let kind = result
            .met
            .first()
            .copied()
            .unwrap_or(crate::ErrorKind::Assertion);
        result.conclusion = other_kind_found(&machine, initial.clone(), eopts, kind);
    }
    let screen_conflict = machine
        .screen_conflict
        .load(std::sync::atomic::Ordering::Relaxed);
    if machine.opts.race_screen {
        report.race_screen = Some(if screen_conflict {
            RaceScreen::Conflict
        } else {
            RaceScreen::NoConflict
        });
    }
    report.stats = result.stats;
    if pinned && opts.machine.symmetry && symmetry_applies(program) {
        // On, and it found no interchangeable threads (`handles_pin_every_thread`).
        report.stats.symmetry = Some(Vec::new());
    }
    if let (Some(j), Some(groups)) = (&machine.join_array, &mut report.stats.symmetry) {
        // The threads of the array's slots: interchangeable up to `main`'s join order.
        groups.push(j.slots as u32);
    }
    if machine.opts.awaits {
        report.stats.awaits = Some(awaits_listing(&machine));
    }
    report.outcomes = result.outcomes;
    report.output = result
        .first_output
        .map(|o| String::from_utf8_lossy(&o).into_owned())
        .unwrap_or_default();
    conclude(
        &mut report,
        &machine,
        initial,
        result.conclusion,
        // The screening search stops at a pair; a search that answers the screen does not.
        screen_conflict && !machine.opts.answer_race_screen,
    );
    report
}

/// A report with `verdict` and `failure` and nothing else.
fn empty_report(verdict: Verdict, failure: Option<Failure>) -> CheckReport {
    CheckReport {
        verdict,
        failure,
        counterexample: None,
        inconclusive_reason: None,
        stats: Stats::default(),
        output: String::new(),
        outcomes: BTreeSet::new(),
        diagnosis: None,
        races: Vec::new(),
        unmodelled: Vec::new(),
        other_kinds: Vec::new(),
        race_screen: None,
    }
}

/// The conclusion when the target kind is not reachable but errors of other kinds
/// (`kind` the first) are: the failure shown is the one a search without a target
/// gives (the shortest, for any number of workers).
fn other_kind_found(
    machine: &Machine<'_>,
    initial: crate::state::State,
    eopts: ExploreOptions,
    kind: crate::ErrorKind,
) -> Conclusion {
    let plain = explore::explore(
        machine,
        initial,
        &ExploreOptions {
            target: None,
            ..eopts
        },
    );
    match plain.conclusion {
        found @ Conclusion::Fail { .. } => found,
        Conclusion::Pass | Conclusion::Inconclusive { .. } => Conclusion::Fail {
            failure: Failure::new(
                kind,
                "reachable (met while searching for another kind); a limit stopped the search for its trace",
            ),
            path: Vec::new(),
            thread: None,
        },
    }
}

/// The awaiting loops found, as `function at file:line`.
fn awaits_listing(machine: &Machine<'_>) -> Vec<String> {
    machine
        .awaits_found()
        .into_iter()
        .map(|(f, l)| match l {
            Some(l) => format!("{f} at {}:{}", crate::interp::short(&l.file), l.line),
            None => f,
        })
        .collect()
}

/// The verdict from the search's conclusion, with the diagnosis of a limit reached
/// or the replayed counterexample of a failure.
fn conclude(
    report: &mut CheckReport,
    machine: &Machine<'_>,
    initial: crate::state::State,
    conclusion: Conclusion,
    stopped_by_screen: bool,
) {
    match conclusion {
        Conclusion::Pass => {}
        Conclusion::Inconclusive { reason, path } => {
            report.verdict = Verdict::Inconclusive;
            report.inconclusive_reason = Some(reason);
            // The limit has been reached: the replay must not run into --timeout again.
            if let Ok(mut d) = machine.deadline.lock() {
                *d = None;
            }
            if !stopped_by_screen {
                report.diagnosis = Some(explore::diagnosis::diagnose(machine, initial, &path));
            }
        }
        Conclusion::Fail { failure, .. } if failure.kind == crate::ErrorKind::StepLimit => {
            report.verdict = Verdict::Inconclusive;
            report.inconclusive_reason = Some(failure.message.clone());
            report.failure = Some(failure);
        }
        Conclusion::Fail {
            failure,
            path,
            thread,
        } => {
            let cex = explore::counterexample::replay(machine, initial, &path, thread);
            report.output = cex.output.clone();
            report.verdict = if failure.kind.is_tool_limitation() {
                Verdict::Error
            } else {
                Verdict::Fail
            };
            // One name per object in message and trace: the replay's message, which
            // names memory after the replay typed it, when it is the same error.
            let failure = match &cex.failure {
                Some(f) if f.kind == failure.kind => Failure {
                    message: f.message.clone(),
                    ..failure
                },
                _ => failure,
            };
            report.failure = Some(failure);
            report.counterexample = Some(cex);
        }
    }
}

/// Thread symmetry is off for a program that calls a library function whose model
/// stores thread numbers in memory (`pthread::stores_thread_ids_name`).
pub(crate) fn symmetry_applies(program: &Program) -> bool {
    !program
        .functions
        .iter()
        .any(|f| f.body.is_none() && crate::pthread::stores_thread_ids_name(&f.name))
}
