//! State-space exploration over transitions with a visited set: a depth-first search on
//! one worker (`dfs`), a level-synchronous breadth-first search on any number of
//! workers (`search`, also what turns an error into a shortest counterexample), and
//! small observers that judge what either sees (`observers`).
//! A transition is one thread's visible action plus the invisible steps after it,
//! under one sequence of nondeterministic choices.

mod chooser;
pub mod commute;
pub mod counterexample;
mod deadlock;
mod dfs;
pub mod diagnosis;
mod dpor;
mod expand;
pub mod footprint;
mod held;
mod liveness;
pub mod observers;
mod parents;
mod persistent;
pub mod roundtrip;
mod search;
mod sleep;
mod symmetric_path;

pub(crate) use crate::interp::future;
pub use crate::interp::StopCheck;
pub use chooser::{advance_script, Choice};
pub use counterexample::Counterexample;

use crate::error::Failure;
use crate::interp::Machine;
use crate::state::{State, ThreadId};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub max_states: Option<u64>,
    /// Bytes of memory (resident set) the checker may use.
    pub max_memory: Option<u64>,
    pub timeout: Option<Duration>,
    /// When the caller's whole time budget ends, if earlier than `timeout` after the
    /// search starts: a caller that runs several searches for one check (a race
    /// search after the TSO one, a re-run under SC) gives each what `--timeout` left.
    /// A search stopped by it reports `--timeout` as set.
    pub deadline: Option<Instant>,
    /// The caller's own reason to stop (a memory budget it measures itself, an
    /// interrupt), asked with the other limits and inside long transitions.
    pub stop: Option<StopCheck>,
}

impl Limits {
    /// When a search that starts at `start` must stop.
    pub fn deadline_from(&self, start: Instant) -> Option<Instant> {
        let own = self.timeout.map(|t| start + t);
        match (own, self.deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// Called now and then during exploration with the figures so far (progress bars).
pub type ProgressFn = std::sync::Arc<dyn Fn(&Stats) + Send + Sync>;

/// Called at most once by a check that answers the race screen, as soon as its answer
/// will not be no-conflict: before its search when the screen does not apply, during it
/// when the first pair of conflicting next accesses shows (from the search's thread). A
/// caller that runs a race search unless the answer is no-conflict may start it then,
/// beside this search.
pub type ScreenConflictHook = std::sync::Arc<dyn Fn() + Send + Sync>;

/// Called first on every worker thread a search starts (the caller's per-run
/// bookkeeping, such as which run a thread's memory counts for); what it returns is
/// dropped when the worker ends.
pub type WorkerStart = std::sync::Arc<dyn Fn() -> Box<dyn std::any::Any> + Send + Sync>;

/// A caller's check of each newly stored state (and the initial one); an error ends the
/// search with that failure along the path to the state (robustness checks). Workers
/// call it concurrently. Any `Fn(&Machine, &State) -> Result<(), Failure>` is one.
pub trait StateCheck: Send + Sync {
    fn check(&self, machine: &Machine<'_>, st: &State) -> Result<(), Failure>;
    /// A second search of the same space begins (see `explore`): forget what was
    /// counted in the first.
    fn restart(&self) {}
}

impl<F> StateCheck for F
where
    F: Fn(&Machine<'_>, &State) -> Result<(), Failure> + Send + Sync,
{
    fn check(&self, machine: &Machine<'_>, st: &State) -> Result<(), Failure> {
        self(machine, st)
    }
}

pub type StateObserver = std::sync::Arc<dyn StateCheck>;

#[derive(Clone, Default)]
pub struct ExploreOptions {
    pub limits: Limits,
    /// Collect the distinct outputs of all complete executions (litmus outcomes);
    /// the output then becomes part of the state.
    pub collect_outcomes: bool,
    pub progress: Option<ProgressFn>,
    /// Workers exploring the one state space (0 or 1: the calling thread alone).
    pub jobs: usize,
    pub observer: Option<StateObserver>,
    pub worker_start: Option<WorkerStart>,
    /// Search for an error of this kind (`CheckOptions::target`).
    pub target: Option<crate::error::ErrorKind>,
    /// Told when the race screen this search answers finds its first pair
    /// (`CheckOptions::on_screen_conflict`).
    pub on_screen_conflict: Option<ScreenConflictHook>,
}

/// One transition on a path: which thread ran (the schedule branch), and each choice
/// its transition made, in order (`chooser`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    pub tid: ThreadId,
    pub choices: Vec<Choice>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Conclusion {
    /// Every reachable state was explored without an error.
    Pass,
    /// An error is reachable along `path`.
    Fail {
        failure: Failure,
        path: Vec<Move>,
        thread: Option<ThreadId>,
    },
    /// A limit stopped exploration first.
    /// A limit stopped exploration first; `path` leads to a state of the deepest level
    /// the search reached (what `diagnosis` samples).
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
    /// How often the store's shard locks were taken, and found taken by another
    /// worker (contention).
    pub contention: crate::store::Contention,
    /// Thread symmetry was on (`store/symmetry.rs`), and the sizes of the groups of
    /// interchangeable threads it found.
    pub symmetry: Option<Vec<u32>>,
    /// Awaits were on (`ir::awaits`), and the loops found: function and source
    /// location of each.
    pub awaits: Option<Vec<String>>,
    /// For progress reports: what the growth diagnosis (`diagnosis`) says about the
    /// path the depth-first search was on once it had run [`GROWTH_AFTER`].
    pub growing: Option<std::sync::Arc<diagnosis::Diagnosis>>,
}

/// When the depth-first search, watched by a progress callback, looks at which
/// variables keep taking new values on its current path (once per search), so that a
/// slow test says why long before a limit stops it.
pub const GROWTH_AFTER: Duration = Duration::from_secs(10);

pub struct ExploreResult {
    pub conclusion: Conclusion,
    pub stats: Stats,
    /// Output of the first complete execution found.
    pub first_output: Option<Vec<u8>>,
    pub outcomes: BTreeSet<String>,
    /// With a target kind: the other kinds of error met, each ending its path (of the
    /// search that gave the conclusion).
    pub met: BTreeSet<crate::error::ErrorKind>,
}

/// Explore every state reachable from `initial`: one search, watched by the observers
/// for deadlock, exit status, outcomes, limits and progress.
pub fn explore(machine: &Machine<'_>, initial: State, opts: &ExploreOptions) -> ExploreResult {
    let start = Instant::now();
    if let Ok(mut d) = machine.deadline.lock() {
        *d = opts.limits.deadline_from(start);
    }
    if let Ok(mut stop) = machine.stop.lock() {
        *stop = opts.limits.stop.clone();
    }
    let join_slots = machine.join_array.is_some();
    machine
        .join_slots_on
        .store(join_slots, std::sync::atomic::Ordering::Relaxed);
    let outcomes = observers::Outcomes {
        collect_all: opts.collect_outcomes,
        ..Default::default()
    };
    let limits = observers::LimitWatch {
        limits: opts.limits.clone(),
        deadline: opts.limits.deadline_from(start),
    };
    let target = opts.target.map(observers::Target::new);
    let progress = opts.progress.clone().map(observers::Progress);
    let new_states = opts
        .observer
        .clone()
        .map(|observe| observers::NewStates { observe, machine });
    let screen = (machine.opts.race_screen && machine.opts.races == crate::race::RacePolicy::Allow)
        .then_some(observers::RaceScreen {
            machine,
            on_conflict: opts.on_screen_conflict.as_ref(),
        });
    let wait_for = observers::WaitFor { machine };
    let no_move = observers::Deadlock { machine };
    let mut watching: Vec<&dyn observers::Observer> = vec![
        &no_move,
        &wait_for,
        &observers::ExitStatus,
        &outcomes,
        &limits,
    ];
    if let Some(p) = &progress {
        watching.push(p);
    }
    if let Some(n) = &new_states {
        watching.push(n);
    }
    if let Some(r) = &screen {
        watching.push(r);
    }
    if let Some(t) = &target {
        watching.push(t);
    }
    let (mut stop, stats) = search_with(machine, &watching, opts, start, initial.clone());
    // A step limit's path is never replayed (`check` shows no trace for a limit), and
    // renaming its threads would run its long transition again.
    if machine.opts.symmetry && !is_step_limit(&stop) {
        // Moves name the threads of representatives: make them the program's own.
        match &mut stop {
            Some(search::Stop::Found { found, path }) => {
                if let Some(real) = symmetric_path::real_path(machine, &initial, path) {
                    symmetric_path::rename_found(machine, &real, found);
                    *path = real.moves;
                }
            }
            Some(search::Stop::Limit { path, .. }) => {
                if let Some(real) = symmetric_path::real_path(machine, &initial, path) {
                    *path = real.moves;
                }
            }
            None => {}
        }
    }
    let conclusion = match stop {
        None => Conclusion::Pass,
        Some(search::Stop::Limit { reason, path }) => Conclusion::Inconclusive { reason, path },
        Some(search::Stop::Found { mut found, path }) => Conclusion::Fail {
            failure: {
                reword(machine, initial, &path, &mut found);
                found.failure.clone()
            },
            thread: found
                .thread
                .or_else(|| deadlock::closing_thread(&found.last_mover_of, &path)),
            path,
        },
    };
    drop(watching);
    ExploreResult {
        conclusion,
        stats,
        first_output: outcomes.first.into_inner().ok().flatten(),
        outcomes: outcomes.all.into_inner().unwrap_or_default(),
        met: target.map(observers::Target::into_met).unwrap_or_default(),
    }
}

fn is_step_limit(stop: &Option<search::Stop>) -> bool {
    matches!(stop, Some(search::Stop::Found { found, .. }) if found.failure.kind == crate::ErrorKind::StepLimit)
}

/// Words `found`'s message as the original states along `path` give it: a state
/// rebuilt from the store (`held`) no longer knows what names its objects had or where
/// its undefined bits came from, which messages quote. The verdict does not change:
/// only a failure of the same kind at the same step replaces the message.
fn reword(machine: &Machine<'_>, initial: State, path: &[Move], found: &mut observers::Found) {
    // The step limit's message needs no state, and running to it again costs the
    // whole limit once more.
    if found.failure.kind == crate::ErrorKind::StepLimit {
        return;
    }
    let Some((last, prefix)) = path.split_last() else {
        return;
    };
    let mut st = initial;
    for mv in prefix {
        let mut chooser = chooser::ScriptChooser::replaying(mv);
        if machine
            .run_transition(&mut st, mv.tid, &mut chooser, None)
            .is_err()
        {
            return;
        }
    }
    let mut chooser = chooser::ScriptChooser::replaying(last);
    let again = match machine.run_transition(&mut st, last.tid, &mut chooser, None) {
        Err(f) => Some(f),
        // A circular wait (`observers::WaitFor`) names the objects waited on.
        Ok(_) if !found.last_mover_of.is_empty() => deadlock::find(machine, &st).map(|d| d.failure),
        Ok(_) => None,
    };
    if let Some(f) = again.filter(|f| f.kind == found.failure.kind) {
        found.failure.message = f.message;
    }
}

/// One worker: the depth-first search, and if it finds an error, the breadth-first
/// search again for the shortest counterexample (so a failing run reports the same
/// path and figures for any number of workers); a state space too deep for it is
/// searched breadth-first from the start. More workers: the breadth-first search.
///
/// With partial-order reduction (`sleep`), an error found is searched for again
/// breadth-first without it: sleep sets keep every state, but a state may first be
/// reached at a deeper level, so only the unreduced search guarantees the shortest
/// counterexample, and a failing run's figures stay those of the full search.
fn search_with(
    machine: &Machine<'_>,
    watching: &[&dyn observers::Observer],
    opts: &ExploreOptions,
    start: Instant,
    initial: State,
) -> (Option<search::Stop>, Stats) {
    // With thread symmetry, sleep sets are renamed into each representative's thread
    // order (`sleep::renamed`); with race data, footprints count race-data effects
    // (`footprint`, "Race data").
    let por = machine.opts.por;
    let breadth_first = |initial: State, por: bool, growing| {
        let mut bfs = search::Search::new(
            machine,
            watching,
            opts.collect_outcomes,
            opts.jobs,
            start,
            por,
        );
        bfs.worker_start = opts.worker_start.clone();
        bfs.growth_after = opts.progress.is_some().then_some(GROWTH_AFTER);
        if let Some(growing) = growing {
            let _ = bfs.growing.set(growing);
        }
        let stop = bfs.run(initial);
        (stop, bfs.stats)
    };
    let depth_first = |dpor: bool| {
        let mut dfs =
            dfs::DepthFirst::new(machine, watching, opts.collect_outcomes, start, por, dpor);
        dfs.growth_after = opts.progress.is_some().then_some(GROWTH_AFTER);
        match dfs.run(initial.clone()) {
            Ok(stop) => (stop, std::mem::take(&mut dfs.stats), dfs.hangs_undecided),
            Err(dfs::TooDeep) => {
                // Too deep (see `dfs::TooDeep`): start again breadth-first.
                let growing = dfs.growth.take();
                drop(dfs);
                watching.iter().for_each(|o| o.restart());
                let (stop, stats) = breadth_first(initial.clone(), por, growing);
                (stop, stats, false)
            }
        }
    };
    let first = if opts.jobs > 1 {
        breadth_first(initial.clone(), por, None)
    } else {
        let (stop, stats, undecided) = depth_first(machine.opts.dpor);
        if undecided {
            // Dynamic partial-order reduction left the hang check undecided (`dpor`,
            // "Properties"): the search without it decides.
            watching.iter().for_each(|o| o.restart());
            let (stop, stats, _) = depth_first(false);
            (stop, stats)
        } else {
            (stop, stats)
        }
    };
    if !matches!(first.0, Some(search::Stop::Found { .. })) {
        return first;
    }
    // A step limit is no counterexample (`check` reports it as inconclusive, with no
    // trace): searching again for a shorter path to it would run the whole long
    // transition again, which is what makes the limit expensive to hit.
    if is_step_limit(&first.0) {
        return first;
    }
    // With the slots of `main`'s array of joined handles sorted, the path leads
    // through states no run reaches (`store/symmetry.rs`, "Joining the array in another
    // order"): the search again, without sorting them, gives a run.
    let join_slots = machine
        .join_slots_on
        .swap(false, std::sync::atomic::Ordering::Relaxed);
    if opts.jobs > 1 && !por && !join_slots {
        return first;
    }
    watching.iter().for_each(|o| o.restart());
    // A failing run lists the races of the unreduced breadth-first search alone (see
    // `take_races`): the depth-first search's depend on its order.
    let earlier = take_races(machine);
    match breadth_first(initial, false, None) {
        found @ (Some(search::Stop::Found { .. }), _) => found,
        // A limit stopped the second search: the first one's path is no run.
        (stop, stats) if join_slots => {
            let reason = match stop {
                Some(search::Stop::Limit { reason, .. }) => reason,
                _ => "the search again for a counterexample without sorting the slots of \
                      `main`'s array of handles stopped"
                    .to_owned(),
            };
            (
                Some(search::Stop::Limit {
                    reason,
                    path: Vec::new(),
                }),
                stats,
            )
        }
        // A limit stopped the second search before the error's depth: keep the first
        // search's counterexample and races.
        _ => {
            if let Ok(mut found) = machine.races_found.lock() {
                *found = earlier;
            }
            first
        }
    }
}

/// The races found so far (`--races warn`), and none from now on.
///
/// Which races a failing run lists is the same for any number of workers and with or
/// without partial-order reduction: those of every transition from the states of the
/// levels the unreduced breadth-first search expands, which it finishes even when an
/// error shows up in one (`search`): every state at most as many steps from the start
/// as the state the error is found in (the state before the failing step; a deadlocked
/// state itself). Each is reported with the accesses the search tree's paths give
/// (`held`), a function of the state space. The depth-first search of one worker, and
/// a reduced search, find races in their own order: one may have gone past the error's
/// depth on another path, the other not reached a race yet.
fn take_races(
    machine: &Machine<'_>,
) -> std::collections::BTreeMap<String, crate::interp::RaceReport> {
    machine
        .races_found
        .lock()
        .map(|mut found| std::mem::take(&mut *found))
        .unwrap_or_default()
}
