//! State-space exploration: depth-first search over transitions, with a visited set.
//! A transition is one thread's visible action plus the invisible steps after it,
//! under one sequence of nondeterministic choices.

mod chooser;
pub mod counterexample;
mod deadlock;
pub mod diagnosis;

pub use counterexample::{Counterexample, TraceStep};

use crate::error::{ErrorKind, Failure};
use crate::interp::{Machine, Step};
use crate::state::{State, ThreadId, ThreadStatus};
use crate::store::{Canonicalizer, StateStore};
use chooser::ScriptChooser;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub max_states: Option<u64>,
    /// Bytes of memory (resident set) the checker may use.
    pub max_memory: Option<u64>,
    pub timeout: Option<Duration>,
}

/// Called now and then during exploration with the figures so far (progress bars).
pub type ProgressFn = std::sync::Arc<dyn Fn(&Stats) + Send + Sync>;

/// Called with each newly stored state (and the initial one); an error ends the
/// search with that failure along the path to the state (robustness checks).
pub type StateObserver =
    std::sync::Arc<dyn Fn(&Machine<'_>, &State) -> Result<(), Failure> + Send + Sync>;

#[derive(Clone, Default)]
pub struct ExploreOptions {
    pub limits: Limits,
    /// Collect the distinct outputs of all complete executions (litmus outcomes);
    /// the output then becomes part of the state.
    pub collect_outcomes: bool,
    pub progress: Option<ProgressFn>,
    pub observer: Option<StateObserver>,
}

/// One transition on a path: which thread ran, and the choices it made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    pub tid: ThreadId,
    pub choices: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every reachable state was explored without an error.
    Pass,
    /// An error is reachable along `path`.
    Fail {
        failure: Failure,
        path: Vec<Move>,
        thread: Option<ThreadId>,
    },
    /// A limit stopped exploration first; `path` leads to the state the search was
    /// at (for a depth-first search, its current and deepest line: what
    /// `diagnosis` samples).
    Inconclusive { reason: String, path: Vec<Move> },
}

#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub states: u64,
    pub transitions: u64,
    pub time: Duration,
    pub stored_bytes: u64,
    pub peak_rss: u64,
    pub max_depth: u64,
    /// Instructions interpreted (all transitions, including re-executions).
    pub instructions: u64,
}

pub struct ExploreResult {
    pub outcome: Outcome,
    pub stats: Stats,
    /// Output of the first complete execution found.
    pub first_output: Option<Vec<u8>>,
    pub outcomes: BTreeSet<String>,
}

struct Node {
    state: State,
    tid: usize,
    script: Vec<(u32, u32)>,
    any_enabled: bool,
    /// The move that led here (None for the root).
    via: Option<Move>,
}

pub fn explore(machine: &Machine<'_>, initial: State, opts: &ExploreOptions) -> ExploreResult {
    let start = Instant::now();
    machine.deadline.set(opts.limits.timeout.map(|t| start + t));
    let mut store = StateStore::new();
    let mut canon = Canonicalizer::new();
    let mut stats = Stats::default();
    let mut first_output = None;
    let mut outcomes = BTreeSet::new();
    store.insert_state(&mut canon, machine.program, &initial, opts.collect_outcomes);
    if let Some(observe) = &opts.observer {
        if let Err(failure) = observe(machine, &initial) {
            let outcome = Outcome::Fail {
                failure,
                path: Vec::new(),
                thread: None,
            };
            stats.time = start.elapsed();
            return ExploreResult {
                outcome,
                stats,
                first_output: None,
                outcomes: BTreeSet::new(),
            };
        }
    }
    let mut stack = vec![Node {
        state: initial,
        tid: 0,
        script: Vec::new(),
        any_enabled: false,
        via: None,
    }];
    let mut chooser = ScriptChooser::default();
    let mut check_counter: u32 = 0;
    let finish =
        |outcome: Outcome, stats: &mut Stats, store: &StateStore, first_output, outcomes| {
            stats.states = store.states() as u64;
            stats.stored_bytes = store.bytes() as u64;
            stats.time = start.elapsed();
            stats.peak_rss = stats.peak_rss.max(crate::resources::peak_rss());
            stats.instructions = machine.instructions.get();
            ExploreResult {
                outcome,
                stats: stats.clone(),
                first_output,
                outcomes,
            }
        };
    while let Some(node) = stack.last_mut() {
        if node.state.is_finished() || node.tid >= node.state.threads.len() {
            let deadlocked = !node.any_enabled && !node.state.is_finished();
            if deadlocked {
                let blocked: Vec<ThreadId> = (0..node.state.threads.len() as ThreadId)
                    .filter(|&t| node.state.thread(t).status == ThreadStatus::Running)
                    .collect();
                let path = path_of(&stack);
                let msg = format!(
                    "every running thread is blocked (threads {})",
                    blocked
                        .iter()
                        .map(|t| t.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                return finish(
                    Outcome::Fail {
                        failure: Failure::new(ErrorKind::Deadlock, msg),
                        path,
                        thread: blocked.first().copied(),
                    },
                    &mut stats,
                    &store,
                    first_output,
                    outcomes,
                );
            }
            stack.pop();
            continue;
        }
        let tid = node.tid as ThreadId;
        if node.state.thread(tid).status != ThreadStatus::Running {
            node.tid += 1;
            node.script.clear();
            continue;
        }
        let mut next = node.state.clone();
        chooser.reset(&node.script);
        let result = machine.run_transition(&mut next, tid, &mut chooser, None);
        // Advance this node's (thread, choice script) cursor.
        let taken = chooser.taken().to_vec();
        match advance_script(&taken) {
            Some(s) => node.script = s,
            None => {
                node.tid += 1;
                node.script.clear();
            }
        }
        let mv = Move {
            tid,
            choices: taken.iter().map(|c| c.0).collect(),
        };
        match result {
            Err(failure) => {
                let mut path = path_of(&stack);
                path.push(mv);
                let thread = failure.thread.or(Some(tid));
                return finish(
                    Outcome::Fail {
                        failure,
                        path,
                        thread,
                    },
                    &mut stats,
                    &store,
                    first_output,
                    outcomes,
                );
            }
            Ok(Step::Blocked) => continue,
            Ok(Step::Pruned) => {
                node.any_enabled = true;
                continue;
            }
            Ok(Step::Progress) => {}
        }
        node.any_enabled = true;
        stats.transitions += 1;
        if let Some(code) = next.exit_code {
            if code != 0 {
                let mut path = path_of(&stack);
                path.push(mv);
                let f = Failure::new(
                    ErrorKind::ExitStatus,
                    format!("the program exited with status {code}"),
                );
                return finish(
                    Outcome::Fail {
                        failure: f,
                        path,
                        thread: Some(tid),
                    },
                    &mut stats,
                    &store,
                    first_output,
                    outcomes,
                );
            }
        }
        if next.is_finished() {
            if first_output.is_none() {
                first_output = Some(next.output.to_vec());
            }
            if opts.collect_outcomes {
                outcomes.insert(String::from_utf8_lossy(&next.output).into_owned());
            }
        }
        if store.insert_state(&mut canon, machine.program, &next, opts.collect_outcomes) {
            canon.collect_garbage(&mut next);
            // A circular wait is a deadlock even while other threads still run.
            if let Some(d) = deadlock::find(machine, &next) {
                let mut path = path_of(&stack);
                path.push(mv);
                let thread = deadlock::closing_thread(&d, &path);
                return finish(
                    Outcome::Fail {
                        failure: d.failure,
                        path,
                        thread,
                    },
                    &mut stats,
                    &store,
                    first_output,
                    outcomes,
                );
            }
            if let Some(observe) = &opts.observer {
                if let Err(failure) = observe(machine, &next) {
                    let mut path = path_of(&stack);
                    path.push(mv);
                    return finish(
                        Outcome::Fail {
                            failure,
                            path,
                            thread: None,
                        },
                        &mut stats,
                        &store,
                        first_output,
                        outcomes,
                    );
                }
            }
            if let Some(max) = opts.limits.max_states {
                if store.states() as u64 >= max {
                    let reason = format!("--max-states {max} reached");
                    let path = path_of(&stack);
                    return finish(
                        Outcome::Inconclusive { reason, path },
                        &mut stats,
                        &store,
                        first_output,
                        outcomes,
                    );
                }
            }
            stack.push(Node {
                state: next,
                tid: 0,
                script: Vec::new(),
                any_enabled: false,
                via: Some(mv),
            });
            stats.max_depth = stats.max_depth.max(stack.len() as u64);
        }
        check_counter += 1;
        if check_counter >= 256 {
            check_counter = 0;
            if let Some(progress) = &opts.progress {
                stats.states = store.states() as u64;
                stats.time = start.elapsed();
                progress(&stats);
            }
            if let Some(reason) = limit_hit(&opts.limits, start, &mut stats) {
                let path = path_of(&stack);
                return finish(
                    Outcome::Inconclusive { reason, path },
                    &mut stats,
                    &store,
                    first_output,
                    outcomes,
                );
            }
        }
    }
    finish(Outcome::Pass, &mut stats, &store, first_output, outcomes)
}

fn limit_hit(limits: &Limits, start: Instant, stats: &mut Stats) -> Option<String> {
    if let Some(t) = limits.timeout {
        if start.elapsed() >= t {
            return Some(format!("--timeout {}s reached", t.as_secs_f64()));
        }
    }
    let rss = crate::resources::current_rss();
    stats.peak_rss = stats.peak_rss.max(rss);
    match limits.max_memory {
        Some(max) if rss >= max => {
            return Some(format!(
                "--max-memory {} reached",
                crate::resources::format_bytes(max)
            ))
        }
        None => {
            // No limit given: stop before exhausting the machine.
            if let Some(max) = crate::resources::default_memory_limit() {
                if rss >= max {
                    return Some(format!(
                        "memory use reached {} (80% of this machine; set --max-memory to change)",
                        crate::resources::format_bytes(max)
                    ));
                }
            }
        }
        _ => {}
    }
    None
}

fn path_of(stack: &[Node]) -> Vec<Move> {
    stack.iter().filter_map(|n| n.via.clone()).collect()
}

/// The next choice script after one that made `taken` choices, in lexicographic order;
/// None when every combination has been tried.
pub fn advance_script(taken: &[(u32, u32)]) -> Option<Vec<(u32, u32)>> {
    let mut s = taken.to_vec();
    while let Some((c, n)) = s.pop() {
        if c + 1 < n {
            s.push((c + 1, n));
            return Some(s);
        }
    }
    None
}
