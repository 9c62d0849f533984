//! `--robustness`: does the program have a behaviour under x86-TSO that sequential
//! consistency lacks?
//!
//! Definition (robustness against TSO, as in the lazy-TSO-reachability line of work):
//! every state reachable under TSO at which all store buffers are empty — program
//! counters, registers, memory — must be reachable under SC.
//!
//! Design. Both sides run the *same instrumented program*: the SC side registers the
//! runtime in `sequential` mode (every access goes straight to memory, same natives,
//! same scheduling points). Program counters, registers and memory of the two runs
//! are therefore directly comparable, and the engine's state fingerprint
//! (`tso_engine::Fingerprint`: the canonical serialisation, objects renamed by a
//! fixed traversal, live registers only, runtime data included; with empty buffers
//! the runtime keeps none) is the projection. Where a transition ends depends on the
//! path (whether an action is visible depends on the state, e.g. on how many threads
//! still run, and a TSO fence is visible only while the buffer holds entries), so
//! before taking a fingerprint, every thread runs its
//! thread-local steps up to its next visible action (`Machine::settle_all`): a state
//! and its local continuation are compared as one. The SC run stores the settled
//! fingerprint of every state it reaches; the TSO run drains the buffers of every
//! new state in every order the delayed-flush `fence` allows
//! (`tso_runtime::runtime::drained_states`), settles each result and looks it up.
//! The first miss ends the TSO search as a failure, so its trace is the engine's path
//! to that state.
//! A TSO run that fails outright (an assertion SC never violates) is not robust too.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use tso_engine::{
    ErrorKind, Failure, Fingerprint, Fingerprinter, Machine, RacePolicy, State, StateCheck,
    StateObserver, Verdict,
};
use tso_runtime::instrument::SourcePoint;
use tso_runtime::runtime::{drained_states, Observation, ObservationLog};

use crate::pipeline::{self, PipelineError, Request, RunExtras};
use crate::run_report::{Cut, Figures, Phase, PhaseFigures, Property, RunReport};

/// More drain orders than this for one state makes the check inconclusive.
const DRAIN_LIMIT: usize = 4096;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Robustness {
    Robust,
    NotRobust,
    /// The program fails under SC already: robustness is not the question.
    FailsUnderSc,
    /// A run was inconclusive or could not run.
    Undecided(String),
}

pub struct RobustnessReport {
    pub robustness: Robustness,
    /// Distinct states sequential consistency reaches.
    pub sc_states: u64,
    /// States the TSO run stored, and drained states compared with the SC set.
    pub tso_states: u64,
    pub compared: u64,
    /// The TSO run (its trace leads to the first state SC cannot reach).
    pub tso: RunReport,
    /// The SC run (its trace is the failure when the program fails under SC).
    pub sc: RunReport,
    /// Reorderings the TSO trace shows.
    pub observations: Vec<Observation>,
    /// The time of both runs (`Phase::RobustnessSc`, `Phase::RobustnessTso`).
    pub time: Figures,
}

impl RobustnessReport {
    /// When robustness was not decided because a limit stopped a run: that run, and
    /// what it left open (robustness, and everything the TSO run looks for when it is
    /// the run that was stopped or never ran).
    pub fn cut(&self) -> Option<Cut> {
        if !matches!(self.robustness, Robustness::Undecided(_)) {
            return None;
        }
        let (side, run) = if self.sc.verdict != Verdict::Pass {
            (Phase::RobustnessSc, &self.sc)
        } else {
            (Phase::RobustnessTso, &self.tso)
        };
        // The race search stands in for the SC side when it is what stopped.
        let phase = match &run.cut {
            Some(cut) if cut.phase == Phase::RaceSearch => Phase::RaceSearch,
            _ => side,
        };
        let mut not_established = run
            .cut
            .as_ref()
            .map(|c| c.not_established.clone())
            .unwrap_or_default();
        not_established.push(Property::Robustness);
        Some(Cut {
            phase,
            not_established,
        })
    }

    /// The run that stands for the check, with the time of every run: the TSO run, or
    /// the SC run when the program fails under SC or when that run (or the race
    /// search) left robustness undecided.
    pub fn outcome(&self) -> RunReport {
        let mut outcome = match &self.robustness {
            Robustness::Robust | Robustness::NotRobust => self.tso.clone(),
            Robustness::FailsUnderSc => self.sc.clone(),
            Robustness::Undecided(why) => {
                let mut o = if self.sc.verdict != Verdict::Pass {
                    self.sc.clone()
                } else {
                    self.tso.clone()
                };
                o.verdict = Verdict::Inconclusive;
                o.inconclusive_reason = Some(why.clone());
                o.cut = self.cut();
                o
            }
        };
        outcome.figures.time = self.time.time;
        outcome.figures.phases = self.time.phases.clone();
        outcome
    }
}

/// A check decided before the TSO run, by `sc` (the run that failed or stopped).
fn before_tso(
    robustness: Robustness,
    sc: RunReport,
    sc_states: u64,
    time: Figures,
) -> RobustnessReport {
    RobustnessReport {
        robustness,
        sc_states,
        tso_states: 0,
        compared: 0,
        tso: RunReport::tool_error(ErrorKind::Unsupported, String::new()),
        sc,
        observations: Vec::new(),
        time,
    }
}

/// `run`'s phases as `phase`, after those in `time`.
fn add_time(time: &mut Figures, run: &RunReport, phase: Phase) {
    for p in &run.figures.phases {
        time.add_phase(PhaseFigures { phase, ..*p });
    }
}

/// The fingerprint of `st` after every thread has run its thread-local steps up to its
/// next visible action. None when those steps fail: the exploration reaches that error
/// itself.
fn key(fingerprints: &mut Fingerprinter, machine: &Machine<'_>, st: &State) -> Option<Fingerprint> {
    let mut settled = st.clone();
    machine.settle_all(&mut settled).ok()?;
    Some(fingerprints.of(machine.program, &settled))
}

/// Checks robustness of the request's program with fences after `fences`.
pub fn check(
    request: &Request<'_>,
    fences: &[SourcePoint],
) -> Result<RobustnessReport, PipelineError> {
    let sc_set: ScStates = Arc::new(Mutex::new((
        Fingerprinter::live_registers(),
        HashSet::new(),
    )));
    let collect = collecting(&sc_set);
    let sc = pipeline::run_guarded_with(
        request,
        &RunExtras {
            fences_after: fences.to_vec(),
            sequential: true,
            observer: Some(collect),
            ..RunExtras::default()
        },
    )?;
    let sc_states = sc_set.lock().map(|g| g.1.len() as u64).unwrap_or(0);
    let mut time = Figures::default();
    add_time(&mut time, &sc, Phase::RobustnessSc);
    // Races are a property of the C program: looked for once, without store buffers
    // (the robustness runs track none); a race under `--races deny` fails under SC.
    let mut races = Vec::new();
    if request.settings.machine.races != RacePolicy::Allow && sc.verdict == Verdict::Pass {
        let race_run = pipeline::race_search(request, None)?;
        add_time(&mut time, &race_run, Phase::RaceSearch);
        match race_run.verdict {
            Verdict::Pass => races = race_run.races,
            Verdict::Fail => {
                return Ok(before_tso(
                    Robustness::FailsUnderSc,
                    race_run,
                    sc_states,
                    time,
                ))
            }
            Verdict::Inconclusive | Verdict::Error => {
                let why = race_run
                    .inconclusive_reason
                    .clone()
                    .or_else(|| race_run.error.as_ref().map(|f| f.message.clone()))
                    .unwrap_or_default();
                let undecided =
                    Robustness::Undecided(format!("the race search did not finish: {why}"));
                return Ok(before_tso(undecided, race_run, sc_states, time));
            }
        }
    }
    let compared = Arc::new(Mutex::new(0u64));
    let unreached = |tso: RunReport, robustness, observations| RobustnessReport {
        robustness,
        sc_states,
        tso_states: tso.figures.states,
        compared: 0,
        tso,
        sc: sc.clone(),
        observations,
        time: time.clone(),
    };
    match sc.verdict {
        Verdict::Pass => {}
        Verdict::Fail => {
            return Ok(unreached(
                RunReport::tool_error(ErrorKind::Unsupported, String::new()),
                Robustness::FailsUnderSc,
                Vec::new(),
            ))
        }
        Verdict::Inconclusive | Verdict::Error => {
            let why = sc
                .inconclusive_reason
                .clone()
                .or_else(|| sc.error.as_ref().map(|f| f.message.clone()))
                .unwrap_or_default();
            return Ok(unreached(
                RunReport::tool_error(ErrorKind::Unsupported, String::new()),
                Robustness::Undecided(format!("the SC run did not finish: {why}")),
                Vec::new(),
            ));
        }
    }
    let compare = comparing(&sc_set, &compared);
    let log: ObservationLog = Arc::default();
    let tso = pipeline::run_guarded_with(
        request,
        &RunExtras {
            fences_after: fences.to_vec(),
            observations: Some(log.clone()),
            observer: Some(compare),
            ..RunExtras::default()
        },
    )?;
    let observations = log.lock().map(|l| l.clone()).unwrap_or_default();
    add_time(&mut time, &tso, Phase::RobustnessTso);
    let mut tso = tso;
    tso.races = races;
    let robustness = conclusion(&tso);
    let compared = compared.lock().map(|n| *n).unwrap_or(0);
    Ok(RobustnessReport {
        robustness,
        sc_states,
        tso_states: tso.figures.states,
        compared,
        tso,
        sc,
        observations,
        time,
    })
}

/// The fingerprints of the states the SC run reached, and the fingerprinter of both
/// runs.
type ScStates = Arc<Mutex<(Fingerprinter, HashSet<Fingerprint>)>>;

/// Observer of the SC run: records every state it reaches.
fn collecting(set: &ScStates) -> StateObserver {
    let set = set.clone();
    Arc::new(move |machine: &Machine<'_>, st: &State| {
        let mut guard = set.lock().map_err(|_| internal())?;
        let (fingerprints, seen) = &mut *guard;
        if let Some(k) = key(fingerprints, machine, st) {
            seen.insert(k);
        }
        Ok(())
    })
}

/// Observer of the TSO run: every state, drained in each order a fence allows, must be
/// one the SC run reached; `compared` counts the states compared.
fn comparing(set: &ScStates, compared: &Arc<Mutex<u64>>) -> StateObserver {
    Arc::new(CompareWithSc {
        sc: set.clone(),
        compared: compared.clone(),
    })
}

struct CompareWithSc {
    sc: ScStates,
    /// Drained states compared so far, in the search being reported.
    compared: Arc<Mutex<u64>>,
}

impl StateCheck for CompareWithSc {
    fn check(&self, machine: &Machine<'_>, st: &State) -> Result<(), Failure> {
        let drained = drained_states(st, DRAIN_LIMIT)?;
        let mut guard = self.sc.lock().map_err(|_| internal())?;
        let (fingerprints, seen) = &mut *guard;
        let states = drained.as_deref().unwrap_or(std::slice::from_ref(st));
        for d in states {
            if let Ok(mut n) = self.compared.lock() {
                *n += 1;
            }
            let Some(k) = key(fingerprints, machine, d) else {
                continue;
            };
            if !seen.contains(&k) {
                return Err(Failure::new(
                    ErrorKind::NotRobust,
                    "this state is reachable under x86-TSO (once the store buffers drain) but not under sequential consistency",
                ));
            }
        }
        Ok(())
    }

    /// The depth-first search found a state SC cannot reach and the breadth-first one
    /// searches again for the shortest path: count that search's comparisons only.
    fn restart(&self) {
        if let Ok(mut n) = self.compared.lock() {
            *n = 0;
        }
    }
}

/// What the TSO run's verdict says about robustness.
fn conclusion(tso: &RunReport) -> Robustness {
    match tso.verdict {
        Verdict::Pass => Robustness::Robust,
        // A state SC cannot reach, or an error SC never runs into.
        Verdict::Fail => Robustness::NotRobust,
        Verdict::Inconclusive => Robustness::Undecided(
            tso.inconclusive_reason
                .clone()
                .unwrap_or_else(|| "the TSO run was inconclusive".into()),
        ),
        Verdict::Error => Robustness::Undecided(
            tso.error
                .as_ref()
                .map(|f| f.message.clone())
                .unwrap_or_else(|| "the TSO run could not run".into()),
        ),
    }
}

fn internal() -> Failure {
    Failure::unsupported("internal error: the robustness state set is poisoned")
}
