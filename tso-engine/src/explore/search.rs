//! Level-synchronous breadth-first search over the store's state ids. Each level is a
//! list of (id, state) in a fixed order; a state is dropped as soon as its successors
//! are generated, so memory holds the store plus one or two levels, never a path of
//! whole states. Breadth-first order makes every counterexample a shortest one, and the
//! fixed order within a level makes it the same one on every run.

use super::chooser::ScriptChooser;
use super::observers::{Found, Observer};
use super::parents::{Parents, StateId};
use super::{Move, Stats};
use crate::interp::{Machine, Step};
use crate::state::{State, ThreadId, ThreadStatus};
use crate::store::{Canonicalizer, StateStore};
use std::time::Instant;

/// Why the search stopped before exhausting the state space.
pub enum Stop {
    /// An error, reached by `path`.
    Found { found: Found, path: Vec<Move> },
    /// A limit (or an observer) ended the search.
    Limit(String),
}

pub struct Search<'a, 'p> {
    machine: &'a Machine<'p>,
    observers: &'a [&'a dyn Observer],
    include_output: bool,
    store: StateStore,
    canon: Canonicalizer,
    chooser: ScriptChooser,
    parents: Parents,
    pub stats: Stats,
    start: Instant,
    ticks: u32,
}

impl<'a, 'p> Search<'a, 'p> {
    pub fn new(
        machine: &'a Machine<'p>,
        observers: &'a [&'a dyn Observer],
        include_output: bool,
        start: Instant,
    ) -> Self {
        Search {
            machine,
            observers,
            include_output,
            store: StateStore::new(),
            canon: Canonicalizer::new(),
            chooser: ScriptChooser::default(),
            parents: Parents::default(),
            stats: Stats::default(),
            start,
            ticks: 0,
        }
    }

    /// Explore everything reachable from `initial`; None when nothing stopped it.
    pub fn run(&mut self, initial: State) -> Option<Stop> {
        let (root, _) = self.store.insert_state(
            &mut self.canon,
            self.machine.program,
            &initial,
            self.include_output,
        );
        self.parents.root();
        let mut level: Vec<(StateId, State)> = vec![(root, initial)];
        let mut stop = None;
        while !level.is_empty() && stop.is_none() {
            self.stats.max_depth += 1;
            let mut next = Vec::new();
            for (id, st) in level {
                if let Some(s) = self.expand(id, &st, &mut next, stop.is_some()) {
                    // A deadlock (a shorter path) found after a failing transition of
                    // this level still wins; anything else found later is longer.
                    let shorter = matches!(&s, Stop::Found { path, .. }
                        if matches!(&stop, Some(Stop::Found { path: p, .. }) if path.len() < p.len()));
                    if stop.is_none() || shorter {
                        stop = Some(s);
                    }
                    if stop_now(&stop) {
                        break;
                    }
                }
            }
            level = next;
        }
        self.finish_stats();
        stop
    }

    fn finish_stats(&mut self) {
        self.stats.states = self.store.states() as u64;
        self.stats.stored_bytes = (self.store.bytes() + self.parents.bytes()) as u64;
        self.stats.time = self.start.elapsed();
        self.stats.peak_rss = self.stats.peak_rss.max(crate::resources::peak_rss());
        self.stats.instructions = self
            .machine
            .instructions
            .load(std::sync::atomic::Ordering::Relaxed);
    }

    /// Generate the successors of `st` (stored as `id`): new ones go to `next`. With
    /// `only_deadlock`, nothing is stored: the level is finished only to find a shorter
    /// counterexample (a deadlock) than one already found.
    fn expand(
        &mut self,
        id: StateId,
        st: &State,
        next: &mut Vec<(StateId, State)>,
        only_deadlock: bool,
    ) -> Option<Stop> {
        if st.is_finished() {
            return None;
        }
        let mut any_enabled = false;
        let mut found = None;
        for tid in 0..st.threads.len() as ThreadId {
            if st.thread(tid).status != ThreadStatus::Running {
                continue;
            }
            let mut script: Vec<(u32, u32)> = Vec::new();
            loop {
                let mut succ = st.clone();
                self.chooser.reset(&script);
                let result = self
                    .machine
                    .run_transition(&mut succ, tid, &mut self.chooser, None);
                let taken = self.chooser.taken();
                let mv = Move {
                    tid,
                    choices: taken.iter().map(|c| c.0).collect(),
                };
                let advanced = advance_script(taken);
                match result {
                    Err(failure) => {
                        any_enabled = true;
                        if failure.kind == crate::error::ErrorKind::StepLimit {
                            // A step limit (--max-steps, --timeout inside a step) ends
                            // the search at once: it is inconclusive, not a shorter path.
                            let thread = failure.thread.or(Some(tid));
                            return Some(self.found(id, mv, Found { failure, thread }));
                        }
                        if found.is_none() && !only_deadlock {
                            let thread = failure.thread.or(Some(tid));
                            found = Some(self.found(id, mv, Found { failure, thread }));
                        }
                    }
                    Ok(Step::Blocked) => {}
                    Ok(Step::Pruned) => any_enabled = true,
                    Ok(Step::Progress) => {
                        any_enabled = true;
                        if found.is_none() && !only_deadlock {
                            found = self.successor(id, mv, succ, next);
                        }
                    }
                }
                match advanced {
                    Some(s) => script = s,
                    None => break,
                }
            }
            if stop_now(&found) {
                return found;
            }
        }
        for o in self.observers {
            if let Some(f) = o.expanded(st, any_enabled) {
                return Some(Stop::Found {
                    found: f,
                    path: self.parents.path_to(id),
                });
            }
        }
        found
    }

    /// A transition from `parent` by `mv` reached `succ`: show it to the observers and
    /// store it.
    fn successor(
        &mut self,
        parent: StateId,
        mv: Move,
        mut succ: State,
        next: &mut Vec<(StateId, State)>,
    ) -> Option<Stop> {
        self.stats.transitions += 1;
        for o in self.observers {
            if let Some(f) = o.transition(mv.tid, &succ) {
                return Some(self.found(parent, mv, f));
            }
        }
        let (id, new) = self.store.insert_state(
            &mut self.canon,
            self.machine.program,
            &succ,
            self.include_output,
        );
        if new {
            self.canon.collect_garbage(&mut succ);
            self.parents.push(id, parent, &mv);
            next.push((id, succ));
            let states = self.store.states() as u64;
            for o in self.observers {
                if let Some(reason) = o.stored(states) {
                    return Some(Stop::Limit(reason));
                }
            }
        }
        self.ticks += 1;
        if self.ticks >= 256 {
            self.ticks = 0;
            self.finish_stats();
            for o in self.observers {
                if let Some(reason) = o.tick(&self.stats) {
                    return Some(Stop::Limit(reason));
                }
            }
        }
        None
    }

    fn found(&self, parent: StateId, mv: Move, found: Found) -> Stop {
        let mut path = self.parents.path_to(parent);
        path.push(mv);
        Stop::Found { found, path }
    }
}

/// The next choice script after one that made `taken` choices, in lexicographic order;
/// None when every combination has been tried.
fn advance_script(taken: &[(u32, u32)]) -> Option<Vec<(u32, u32)>> {
    let mut s = taken.to_vec();
    while let Some((c, n)) = s.pop() {
        if c + 1 < n {
            s.push((c + 1, n));
            return Some(s);
        }
    }
    None
}

/// Limits, and step limits, end the search without finishing the level.
fn stop_now(stop: &Option<Stop>) -> bool {
    match stop {
        Some(Stop::Limit(_)) => true,
        Some(Stop::Found { found, .. }) => found.failure.kind == crate::error::ErrorKind::StepLimit,
        None => false,
    }
}
