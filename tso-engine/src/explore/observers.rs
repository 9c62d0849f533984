//! Small observers the search calls: each watches one property of the states and
//! transitions it sees (deadlock, exit status, outcomes, limits, progress). The search
//! itself knows none of them.

use super::{Limits, ProgressFn, Stats};
use crate::error::{ErrorKind, Failure};
use crate::state::{State, ThreadId};
use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::Instant;

/// An error an observer found: the failure and the thread it is blamed on.
pub struct Found {
    pub failure: Failure,
    pub thread: Option<ThreadId>,
    /// When `thread` is None: blame whichever of these moved last on the path (the
    /// thread whose step closed a circular wait).
    pub last_mover_of: Vec<ThreadId>,
}

impl Found {
    pub fn new(failure: Failure, thread: Option<ThreadId>) -> Self {
        Found {
            failure,
            thread,
            last_mover_of: Vec::new(),
        }
    }
}

/// Watches the search. Methods are called from any worker, hence `&self`.
pub trait Observer: Sync {
    /// Every successor of `st` has been generated; `any_enabled` says whether some thread
    /// could move.
    fn expanded(&self, _st: &State, _any_enabled: bool) -> Option<Found> {
        None
    }
    /// A transition of `tid` produced `next` (before it is looked up in the store).
    fn transition(&self, _tid: ThreadId, _next: &State) -> Option<Found> {
        None
    }
    /// `st` was stored for the first time (also called for the initial state).
    fn new_state(&self, _st: &State) -> Option<Found> {
        None
    }
    /// A new state was stored, the `states`-th; a reason stops the search.
    fn stored(&self, _states: u64) -> Option<String> {
        None
    }
    /// Called now and then with the figures so far; a reason stops the search.
    fn tick(&self, _stats: &Stats) -> Option<String> {
        None
    }
    /// A second search of the same space begins: forget what the first one showed.
    fn restart(&self) {}
    /// An error was found: true when it ends only its own path, not the search (the
    /// search then treats the failing move or state as a dead end, see [`Target`]).
    fn absorbs(&self, _found: &Found) -> bool {
        false
    }
}

/// Whether some observer absorbs `found` (see [`Observer::absorbs`]).
pub fn absorbed(observers: &[&dyn Observer], found: &Found) -> bool {
    observers.iter().any(|o| o.absorbs(found))
}

/// A state where no thread can move although the program has not finished, unless
/// every thread left waits for one stuck in an endless loop (`--allow-nontermination`):
/// that is the loop's non-termination, not a deadlock.
pub struct Deadlock<'m, 'p> {
    pub machine: &'m crate::interp::Machine<'p>,
}

impl Observer for Deadlock<'_, '_> {
    fn expanded(&self, st: &State, any_enabled: bool) -> Option<Found> {
        if any_enabled || st.is_finished() || super::deadlock::all_behind_stuck(self.machine, st) {
            return None;
        }
        if let Some(found) = self.hang_at_awaits(st) {
            return found;
        }
        let blocked: Vec<ThreadId> = (0..st.threads.len() as ThreadId)
            .filter(|&t| st.thread(t).status.is_running())
            .collect();
        let list = blocked
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        Some(Found::new(
            Failure::new(
                ErrorKind::Deadlock,
                format!("every running thread is blocked (threads {list})"),
            ),
            blocked.first().copied(),
        ))
    }
}

/// A thread that can never move again while others still may: a circular wait, or a
/// wait for what no running thread can release (see `deadlock.rs`).
pub struct WaitFor<'m, 'p> {
    pub machine: &'m crate::interp::Machine<'p>,
}

impl Observer for WaitFor<'_, '_> {
    fn new_state(&self, st: &State) -> Option<Found> {
        super::deadlock::find(self.machine, st).map(|d| Found {
            failure: d.failure,
            thread: None,
            last_mover_of: d.threads,
        })
    }
}

impl Deadlock<'_, '_> {
    /// No thread can move and some wait at awaits (`ir::awaits`): the program can hang
    /// there, spinning forever. `Some(None)`: with `--allow-nontermination`, not an
    /// error (the path ends).
    fn hang_at_awaits(&self, st: &State) -> Option<Option<Found>> {
        let machine = self.machine;
        let waiting: Vec<(ThreadId, String)> = (0..st.threads.len() as ThreadId)
            .filter_map(|t| {
                let at = machine.awaiting_at(st, t)?;
                let place = at.map_or_else(
                    || "an unknown place".to_string(),
                    |l| format!("{}:{}", crate::interp::short(&l.file), l.line),
                );
                Some((
                    t,
                    format!("thread {t} spins at {place}{}", waits_on(machine, st, t)),
                ))
            })
            .collect();
        let first = waiting.first()?.0;
        if machine.opts.allow_nontermination {
            return Some(None);
        }
        let list = waiting
            .into_iter()
            .map(|w| w.1)
            .collect::<Vec<_>>()
            .join("; ");
        Some(Some(Found::new(
            Failure::new(
                ErrorKind::NonTerminating,
                format!("the program can never end from here: no thread can move, and a loop that only reads waits for a write no thread will make ({list})"),
            ),
            Some(first),
        )))
    }
}

/// What the failing iteration of `t`'s await reads, named (run once more with the
/// footprint recorder): " reading `x`, `y`", or nothing if it cannot be told.
fn waits_on(machine: &crate::interp::Machine<'_>, st: &State, t: ThreadId) -> String {
    let mut after = st.clone();
    let mut chooser = super::chooser::ScriptChooser::default();
    let (_, fp) = machine.run_transition_recorded(st, &mut after, t, &mut chooser);
    let names: Vec<String> = fp
        .object_reads()
        .into_iter()
        .map(|(obj, start, end)| {
            format!(
                "`{}`",
                crate::interp::describe_range(machine.program, st, obj, start, end)
            )
        })
        .collect();
    if names.is_empty() {
        String::new()
    } else {
        format!(" reading {}", names.join(", "))
    }
}

/// The program exited with a non-zero status.
pub struct ExitStatus;

impl Observer for ExitStatus {
    fn transition(&self, tid: ThreadId, next: &State) -> Option<Found> {
        match next.exit_code {
            Some(code) if code != 0 => Some(Found::new(
                Failure::new(
                    ErrorKind::ExitStatus,
                    format!("the program exited with status {code}"),
                ),
                Some(tid),
            )),
            _ => None,
        }
    }
}

/// The outputs of complete executions: the first one found, and (for litmus outcome
/// collection) the set of all of them.
#[derive(Default)]
pub struct Outcomes {
    pub collect_all: bool,
    pub first: Mutex<Option<Vec<u8>>>,
    pub all: Mutex<BTreeSet<String>>,
}

impl Observer for Outcomes {
    fn restart(&self) {
        if let Ok(mut first) = self.first.lock() {
            *first = None;
        }
        if let Ok(mut all) = self.all.lock() {
            all.clear();
        }
    }
    fn transition(&self, _tid: ThreadId, next: &State) -> Option<Found> {
        if next.is_finished() {
            if let Ok(mut first) = self.first.lock() {
                if first.is_none() {
                    *first = Some(next.output.to_vec());
                }
            }
            if self.collect_all {
                if let Ok(mut all) = self.all.lock() {
                    all.insert(String::from_utf8_lossy(&next.output).into_owned());
                }
            }
        }
        None
    }
}

/// `--max-states`, `--timeout` and `--max-memory` (or 80% of the machine).
pub struct LimitWatch {
    pub limits: Limits,
    /// When `--timeout` (or the caller's budget, `Limits::deadline`) ends this search.
    pub deadline: Option<Instant>,
}

impl Observer for LimitWatch {
    fn stored(&self, states: u64) -> Option<String> {
        match self.limits.max_states {
            Some(max) if states >= max => Some(format!("--max-states {max} reached")),
            _ => None,
        }
    }
    fn tick(&self, _stats: &Stats) -> Option<String> {
        if let Some(reason) = self.limits.stop.as_ref().and_then(|stop| (stop.0)()) {
            return Some(reason);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Some(match self.limits.timeout {
                Some(t) => format!("--timeout {}s reached", t.as_secs_f64()),
                None => "--timeout reached".to_owned(),
            });
        }
        crate::resources::memory_limit_reached(self.limits.max_memory)
    }
}

/// Runs a caller's check on every new state (robustness).
pub struct NewStates<'m, 'p> {
    pub observe: super::StateObserver,
    pub machine: &'m crate::interp::Machine<'p>,
}

impl Observer for NewStates<'_, '_> {
    fn new_state(&self, st: &State) -> Option<Found> {
        self.observe
            .check(self.machine, st)
            .err()
            .map(|failure| Found::new(failure, None))
    }
    fn restart(&self) {
        self.observe.restart();
    }
}

/// Reports the figures so far (progress bars).
pub struct Progress(pub ProgressFn);

impl Observer for Progress {
    fn tick(&self, stats: &Stats) -> Option<String> {
        (self.0)(stats);
        None
    }
}

/// The search for one kind of error (`CheckOptions::target`): an error of another kind
/// ends its path, as it would end a real execution there, and the search goes on with
/// the other paths; the kinds met that way are recorded. Limits (`step-limit`) and
/// constructs the tool cannot check (`unsupported`) still stop the search: past them
/// nothing is known. So when the search ends without the target, no path reaches it
/// that does not first run into another error.
pub struct Target {
    kind: ErrorKind,
    met: Mutex<BTreeSet<ErrorKind>>,
}

impl Target {
    pub fn new(kind: ErrorKind) -> Target {
        Target {
            kind,
            met: Mutex::new(BTreeSet::new()),
        }
    }

    pub fn into_met(self) -> BTreeSet<ErrorKind> {
        self.met.into_inner().unwrap_or_default()
    }
}

impl Observer for Target {
    fn absorbs(&self, found: &Found) -> bool {
        let kind = found.failure.kind;
        if kind == self.kind || kind == ErrorKind::StepLimit || kind.is_tool_limitation() {
            return false;
        }
        if let Ok(mut met) = self.met.lock() {
            met.insert(kind);
        }
        true
    }
    fn restart(&self) {
        if let Ok(mut met) = self.met.lock() {
            met.clear();
        }
    }
}

/// The race screen (`crate::race::screen`): in each new state, the next accesses of
/// every running thread (each choice script of a transition that must be run to tell);
/// two that conflict stop the search (the history-based search then runs).
pub struct RaceScreen<'m, 'p> {
    pub machine: &'m crate::interp::Machine<'p>,
    /// Told of the first pair, when the search answers the screen.
    pub on_conflict: Option<&'m super::ScreenConflictHook>,
}

/// Choice scripts run per transition before the screen gives up and counts it as a
/// conflict (the history-based search then decides).
const SCREEN_MAX_SCRIPTS: usize = 256;

/// Why the screen stopped its search.
pub const SCREEN_STOP: &str = "two threads' next accesses conflict";

impl RaceScreen<'_, '_> {
    /// Do two running threads of `st` have conflicting next accesses?
    fn conflict(&self, st: &State) -> bool {
        use crate::race::screen::ProbeAccess;
        let m = self.machine;
        if st.exit_code.is_some() || st.at_most_one_running() {
            return false;
        }
        let owner = st
            .atomic_owner
            .filter(|&o| st.thread(o).status.is_running());
        // Per running thread: its next accesses, and whether they are its whole
        // transition's (it was run) or its visible action's alone.
        let mut next: Vec<(ThreadId, Vec<ProbeAccess>, bool)> = Vec::new();
        for u in 0..st.threads.len() as ThreadId {
            if !st.thread(u).status.is_running() || owner.is_some_and(|o| o != u) {
                continue;
            }
            let mut accesses = Vec::new();
            let whole = !m.screen_access(st, u, &mut accesses);
            if whole && !self.run_transition(st, u, &mut accesses) {
                return true;
            }
            next.push((u, accesses, whole));
        }
        // A transition may end stack objects after its visible action (a return): where
        // another thread's next access touches a stack object of a thread, that
        // thread's whole transition counts.
        while let Some(i) = next.iter().find_map(|(_, accesses, _)| {
            accesses.iter().find_map(|a| {
                let o = st.memory.get(a.obj)?;
                if o.kind != crate::memory::ObjKind::Stack {
                    return None;
                }
                next.iter().position(|(u, _, whole)| {
                    *u != a.tid
                        && !*whole
                        && st
                            .thread(*u)
                            .frames
                            .iter()
                            .any(|f| f.allocas.contains(&a.obj) || f.varargs == Some(a.obj))
                })
            })
        }) {
            // The visible action's own accesses stay: a memory model's native notes
            // none when run (`Native::program_accesses`).
            let (u, accesses, whole) = &mut next[i];
            *whole = true;
            if !self.run_transition(st, *u, accesses) {
                return true;
            }
        }
        next.iter().enumerate().any(|(i, (_, mine, _))| {
            next[i + 1..]
                .iter()
                .any(|(_, theirs, _)| mine.iter().any(|a| theirs.iter().any(|b| a.conflicts(b))))
        })
    }

    /// The accesses of `tid`'s transition from `st` under every choice script, added to
    /// `accesses`; false when it has too many scripts to run.
    fn run_transition(
        &self,
        st: &State,
        tid: ThreadId,
        accesses: &mut Vec<crate::race::screen::ProbeAccess>,
    ) -> bool {
        let m = self.machine;
        if m.blocks_at_once(st, tid) {
            return true;
        }
        if m.screen_thread_end(st, tid, accesses).is_some() {
            return true;
        }
        let mut script = super::chooser::Script::new();
        for _ in 0..SCREEN_MAX_SCRIPTS {
            let mut next = st.clone();
            let mut chooser = super::chooser::ScriptChooser::default();
            chooser.reset(&script);
            let probe = crate::race::screen::Probe::start();
            let r = m.run_transition(&mut next, tid, &mut chooser, None);
            probe.finish(tid, accesses);
            if r == Ok(crate::interp::Step::Blocked) {
                return true;
            }
            match super::chooser::next_script(chooser.taken()) {
                Some(s) => script = s,
                None => return true,
            }
        }
        false
    }
}

impl Observer for RaceScreen<'_, '_> {
    fn new_state(&self, st: &State) -> Option<Found> {
        let found = &self.machine.screen_conflict;
        // A search that answers the screen goes on after a pair: no need to ask again.
        if self.machine.opts.answer_race_screen && found.load(std::sync::atomic::Ordering::Relaxed)
        {
            return None;
        }
        // Workers may find pairs at once: only the first tells.
        if self.conflict(st) && !found.swap(true, std::sync::atomic::Ordering::Relaxed) {
            if let Some(hook) = self.on_conflict {
                hook();
            }
        }
        None
    }
    fn stored(&self, _states: u64) -> Option<String> {
        if self.machine.opts.answer_race_screen {
            return None;
        }
        self.machine
            .screen_conflict
            .load(std::sync::atomic::Ordering::Relaxed)
            .then(|| SCREEN_STOP.to_owned())
    }
}
