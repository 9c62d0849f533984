//! Depth-first search on one worker: the cheapest way to show that no error is
//! reachable. Its stack holds the ids of the states on the current path, and whole
//! states only near its top, up to [`MAX_PATH_BYTES`]: a state lower down is rebuilt
//! from the store when the search backtracks to it (see `held`). A state is generated,
//! stored and expanded without ever being queued.
//!
//! It reports the first error it meets, on a path that is usually long; `explore` then
//! asks the breadth-first search (`search`) for the shortest one, so the counterexample
//! and the failing run's figures do not depend on which search found the error.

use super::chooser::ScriptChooser;
use super::held::Keeper;
use super::observers::{Found, Observer};
use super::search::{advance_script, Stop};
use super::{Move, Stats};
use crate::interp::{Machine, Step};
use crate::state::{State, ThreadId, ThreadStatus};
use crate::store::{Canonicalizer, Inserted, Scratch, StateStore};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

/// Transitions between two calls of the observers' `tick`.
const TICK: u32 = 256;

/// Serialised bytes of the whole states kept on the path. Past it, the states lowest on
/// the path are dropped and rebuilt when the search comes back to them; when states
/// cannot be rebuilt, the state space counts as too deep for this search (an unbounded
/// counter, or store buffers that keep growing) and is searched breadth-first instead.
const MAX_PATH_BYTES: usize = 8 << 20;

/// Steps on the path beyond which the state space counts as too deep for this search
/// even when its states are held by id: a node costs about 100 bytes, and such depths
/// come from counters that never stop, where breadth-first levels stay small.
const MAX_PATH_NODES: usize = 1 << 20;

/// Serialised bytes of all the states on the path, held or not. States that grow with
/// depth (store buffers that keep growing, `--sb-bound 0`) make each deeper state
/// bigger and share little with the others, so a deep path fills the store with big
/// states; breadth-first keeps them short. Measured on `shared_counter`: 20,000 states
/// took 1.8 GiB depth-first without this bound, 70 MiB breadth-first.
const MAX_PATH_TOTAL_BYTES: usize = 32 << 20;

/// The path grew past [`MAX_PATH_NODES`] or [`MAX_PATH_TOTAL_BYTES`], or past
/// [`MAX_PATH_BYTES`] of states that cannot be rebuilt.
pub struct TooDeep;

pub struct DepthFirst<'a, 'p> {
    machine: &'a Machine<'p>,
    observers: &'a [&'a dyn Observer],
    include_output: bool,
    store: StateStore,
    canon: Canonicalizer,
    scratch: Scratch,
    chooser: ScriptChooser,
    pub stats: Stats,
    start: Instant,
}

/// A state on the current path and where its expansion stands.
struct Node {
    id: u32,
    /// The state, while it is kept whole (None: rebuild it from the store).
    /// Boxed: a path can be deep, and a node without its state should cost little.
    state: Option<Box<State>>,
    /// What the state printed so far (not in the store unless outcomes are collected).
    output: Arc<Vec<u8>>,
    /// The thread whose transitions are being generated.
    tid: ThreadId,
    /// The next choice script for `tid`.
    script: Vec<(u32, u32)>,
    /// Some thread could move from here.
    any_enabled: bool,
    /// The move that led here (None for the root).
    via: Option<Move>,
    /// Size of the state, serialised.
    bytes: usize,
}

impl Node {
    fn new(id: u32, state: State, via: Option<Move>, bytes: usize) -> Node {
        Node {
            id,
            output: state.output.clone(),
            state: Some(Box::new(state)),
            tid: 0,
            script: Vec::new(),
            any_enabled: false,
            via,
            bytes,
        }
    }

    /// Go on with the next thread.
    fn next_thread(&mut self) {
        self.tid += 1;
        self.script.clear();
    }
}

/// What one generated transition led to.
enum Next {
    /// Nothing to store (blocked, pruned, or already seen).
    Nothing,
    /// A new state to expand.
    Push(Node),
    Stop(Stop),
}

impl<'a, 'p> DepthFirst<'a, 'p> {
    pub fn new(
        machine: &'a Machine<'p>,
        observers: &'a [&'a dyn Observer],
        include_output: bool,
        start: Instant,
    ) -> Self {
        DepthFirst {
            machine,
            observers,
            include_output,
            store: StateStore::new().with_symmetry(machine.opts.symmetry),
            canon: Canonicalizer::new(),
            scratch: Scratch::default(),
            chooser: ScriptChooser::default(),
            stats: Stats::default(),
            start,
        }
    }

    /// Explore everything reachable from `initial`; None when nothing stopped it.
    pub fn run(&mut self, initial: State) -> Result<Option<Stop>, TooDeep> {
        let stop = self.search(initial);
        self.finish_stats();
        stop
    }

    fn search(&mut self, initial: State) -> Result<Option<Stop>, TooDeep> {
        let root = self.insert(&initial);
        if let Some(found) = self.observers.iter().find_map(|o| o.new_state(&initial)) {
            return Ok(Some(Stop::Found {
                found,
                path: Vec::new(),
            }));
        }
        let keeper = Keeper::new(
            self.machine,
            &self.store,
            &self.canon,
            &mut self.scratch,
            root.id,
            &initial,
        );
        // Nodes from `first_kept` up keep their states whole, `kept_bytes` in all.
        let mut kept_bytes = self.canon.chunks.byte_len();
        let mut path_bytes = kept_bytes;
        let mut first_kept = 0;
        let mut stack = vec![Node::new(root.id, initial, None, kept_bytes)];
        let mut ticks = 0;
        while let Some(node) = stack.last_mut() {
            if node.state.is_none() {
                // Back to a state dropped on the way down.
                match keeper.rebuild_id(
                    self.machine,
                    &self.store,
                    &self.canon,
                    &mut self.scratch,
                    node.id,
                    &node.output,
                ) {
                    Ok(st) => node.state = Some(Box::new(st)),
                    Err(failure) => {
                        let found = Found::new(failure, None);
                        let path = path_of(&stack);
                        return Ok(Some(Stop::Found { found, path }));
                    }
                }
                kept_bytes += node.bytes;
                first_kept = stack.len() - 1;
            }
            let node = stack.last_mut().expect("the loop holds a node");
            let Some(state) = &node.state else {
                unreachable!("rebuilt above")
            };
            if state.is_finished() || node.tid as usize >= state.threads.len() {
                if !state.is_finished() {
                    let any = node.any_enabled;
                    if let Some(found) = self.observers.iter().find_map(|o| o.expanded(state, any))
                    {
                        let path = path_of(&stack);
                        return Ok(Some(Stop::Found { found, path }));
                    }
                }
                kept_bytes -= node.bytes;
                path_bytes -= node.bytes;
                stack.pop();
                continue;
            }
            if state.thread(node.tid).status != ThreadStatus::Running {
                node.next_thread();
                continue;
            }
            match self.transition(node) {
                Next::Nothing => {}
                Next::Push(child) => {
                    kept_bytes += child.bytes;
                    path_bytes += child.bytes;
                    stack.push(child);
                    if stack.len() > MAX_PATH_NODES || path_bytes > MAX_PATH_TOTAL_BYTES {
                        return Err(TooDeep);
                    }
                    self.stats.max_depth = self.stats.max_depth.max(stack.len() as u64);
                    while kept_bytes > MAX_PATH_BYTES {
                        // Drop the lowest whole state (never the one being expanded).
                        if first_kept + 1 >= stack.len() {
                            break;
                        }
                        let low = &mut stack[first_kept];
                        if !low.state.as_ref().is_some_and(|s| keeper.by_id(s)) {
                            return Err(TooDeep);
                        }
                        low.state = None;
                        kept_bytes -= low.bytes;
                        first_kept += 1;
                    }
                }
                Next::Stop(Stop::Found { found, path: last }) => {
                    let mut path = path_of(&stack);
                    path.extend(last);
                    return Ok(Some(Stop::Found { found, path }));
                }
                Next::Stop(Stop::Limit { reason, .. }) => {
                    let path = path_of(&stack);
                    return Ok(Some(Stop::Limit { reason, path }));
                }
            }
            ticks += 1;
            if ticks >= TICK {
                ticks = 0;
                if let Some(reason) = self.tick() {
                    let path = path_of(&stack);
                    return Ok(Some(Stop::Limit { reason, path }));
                }
            }
        }
        Ok(None)
    }

    /// Generate `node`'s next transition and advance its cursor. A `Found` carries the
    /// failing move only; the caller prefixes the path.
    fn transition(&mut self, node: &mut Node) -> Next {
        let tid = node.tid;
        let Some(state) = &node.state else {
            unreachable!("a node is expanded whole")
        };
        let mut next = State::clone(state);
        self.chooser.reset(&node.script);
        let result = self
            .machine
            .run_transition(&mut next, tid, &mut self.chooser, None);
        let taken = self.chooser.taken();
        let mv = Move {
            tid,
            choices: taken.iter().map(|c| c.0).collect(),
        };
        match advance_script(taken) {
            Some(s) => node.script = s,
            None => node.next_thread(),
        }
        let found = |found: Found, mv: Move| {
            Next::Stop(Stop::Found {
                found,
                path: vec![mv],
            })
        };
        match result {
            Err(failure) => {
                let thread = failure.thread.or(Some(tid));
                return found(Found::new(failure, thread), mv);
            }
            Ok(Step::Blocked) => return Next::Nothing,
            Ok(Step::Pruned) => {
                node.any_enabled = true;
                return Next::Nothing;
            }
            Ok(Step::Progress) => node.any_enabled = true,
        }
        self.stats.transitions += 1;
        if let Some(f) = self.observers.iter().find_map(|o| o.transition(tid, &next)) {
            return found(f, mv);
        }
        let ins = self.insert(&next);
        if !ins.new {
            return Next::Nothing;
        }
        self.canon.to_representative(&mut next);
        if let Some(f) = self.observers.iter().find_map(|o| o.new_state(&next)) {
            return found(f, mv);
        }
        let states = self.store.states() as u64;
        if let Some(reason) = self.observers.iter().find_map(|o| o.stored(states)) {
            return Next::Stop(Stop::Limit {
                reason,
                path: Vec::new(),
            });
        }
        Next::Push(Node::new(
            ins.id,
            next,
            Some(mv),
            self.canon.chunks.byte_len(),
        ))
    }

    /// Store `st`.
    fn insert(&mut self, st: &State) -> Inserted {
        self.store.insert_state(
            &mut self.canon,
            &mut self.scratch,
            self.machine.program,
            st,
            self.include_output,
        )
    }

    fn tick(&self) -> Option<String> {
        let stats = Stats {
            states: self.store.states() as u64,
            transitions: self.stats.transitions,
            time: self.start.elapsed(),
            ..Stats::default()
        };
        self.observers.iter().find_map(|o| o.tick(&stats))
    }

    fn finish_stats(&mut self) {
        self.stats.states = self.store.states() as u64;
        self.stats.stored_bytes = self.store.bytes() as u64;
        self.stats.symmetry = self
            .machine
            .opts
            .symmetry
            .then(|| self.store.symmetry_groups());
        self.stats.time = self.start.elapsed();
        self.stats.peak_rss = self.stats.peak_rss.max(crate::resources::peak_rss());
        self.stats.instructions = self.machine.instructions.load(Ordering::Relaxed);
    }
}

fn path_of(stack: &[Node]) -> Vec<Move> {
    stack.iter().filter_map(|n| n.via.clone()).collect()
}
