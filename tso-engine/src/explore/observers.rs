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
    pub start: Instant,
}

impl Observer for LimitWatch {
    fn stored(&self, states: u64) -> Option<String> {
        match self.limits.max_states {
            Some(max) if states >= max => Some(format!("--max-states {max} reached")),
            _ => None,
        }
    }
    fn tick(&self, _stats: &Stats) -> Option<String> {
        if let Some(t) = self.limits.timeout {
            if self.start.elapsed() >= t {
                return Some(format!("--timeout {}s reached", t.as_secs_f64()));
            }
        }
        let rss = crate::resources::current_rss();
        match self.limits.max_memory {
            Some(max) if rss >= max => Some(format!(
                "--max-memory {} reached",
                crate::resources::format_bytes(max)
            )),
            None => crate::resources::default_memory_limit()
                .filter(|&max| rss >= max)
                .map(|max| {
                    format!(
                        "memory use reached {} (80% of this machine; set --max-memory to change)",
                        crate::resources::format_bytes(max)
                    )
                }),
            _ => None,
        }
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
