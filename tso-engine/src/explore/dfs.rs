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
use super::footprint::Footprint;
use super::future::Futures;
use super::held::Keeper;
use super::liveness::{self, Graph};
use super::observers::{absorbed, Found, Observer};
use super::persistent::{self, ThreadRun};
use super::search::{advance_script, Stop};
use super::sleep::{self, Expand, Payoff, Sleep};
use super::{Move, Stats};
use crate::interp::{Machine, Step};
use crate::state::{State, ThreadId};
use crate::store::{Base, Canonicalizer, Inserted, Scratch, StateStore};
use std::collections::{HashMap, HashSet, VecDeque};
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
    /// Partial-order reduction by sleep sets (`sleep`).
    por: bool,
    /// Partial-order reduction by persistent sets (`persistent`), with the program's
    /// static futures; exclusive with sleep sets.
    persistent: Option<Futures>,
    /// The sleep set each stored state keeps (absent: empty).
    sleeps: HashMap<u32, Sleep>,
    /// Footprints are still recorded and successors given sleep sets (`Payoff`).
    recording: bool,
    payoff: Payoff,
    /// Stored states whose error an observer absorbed (`Observer::absorbs`): never
    /// expanded, also when reached again.
    dead_ends: HashSet<u32>,
    /// The stored transitions and ends, for the check that every state can reach the
    /// program's end (`liveness`); None when it does not apply.
    graph: Option<Graph>,
    /// With progress reports: when to diagnose the growth on the current path
    /// (`GROWTH_AFTER`), the initial state to replay it from, and the diagnosis.
    pub growth_after: Option<std::time::Duration>,
    initial: Option<State>,
    /// The growth diagnosis, once made; taken over by the breadth-first search when
    /// the state space is too deep for this one.
    pub growth: Option<Arc<super::diagnosis::Diagnosis>>,
}

/// Moves of the current path that the growth diagnosis for progress reports replays.
const GROWTH_SAMPLE_MOVES: usize = 4096;

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
    /// The state canonicalised, for its successors' incremental canonicalisation
    /// (`Canonicalizer::swap_base`); kept with the whole state only.
    base: Option<Box<Base>>,
    /// With partial-order reduction: the sleep set it is expanded with, which threads
    /// to expand, every thread's footprint here (all its choice variants), and the
    /// successors of the thread being expanded not yet stored.
    sleep: Sleep,
    expand: Expand,
    footprints: Vec<Option<Footprint>>,
    /// The threads not expanded here have run (for their footprints).
    prepared: bool,
    /// `tid`'s transitions have run; `pending` holds what they reached.
    ran: bool,
    pending: VecDeque<(Move, State)>,
    /// With persistent sets: the threads to expand (`persistent::choose`; all ones:
    /// every thread), once `chosen`.
    ample: u64,
    chosen: bool,
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
            base: None,
            sleep: 0,
            expand: Expand::AllAwake,
            footprints: Vec::new(),
            prepared: false,
            ran: false,
            pending: VecDeque::new(),
            ample: u64::MAX,
            chosen: false,
        }
    }

    fn with_base(mut self, base: Option<Box<Base>>) -> Node {
        self.base = base;
        self
    }

    fn asleep(mut self, sleep: Sleep, expand: Expand, footprints: Vec<Option<Footprint>>) -> Node {
        self.sleep = sleep;
        self.expand = expand;
        self.footprints = footprints;
        self
    }

    /// Go on with the next thread.
    fn next_thread(&mut self) {
        self.tid += 1;
        self.script.clear();
        self.ran = false;
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
        por: bool,
    ) -> Self {
        let persistent =
            (por && machine.opts.uses_persistent_sets()).then(|| Futures::new(machine));
        let por = por && persistent.is_none();
        DepthFirst {
            persistent,
            por,
            sleeps: HashMap::new(),
            recording: por,
            payoff: Payoff::default(),
            machine,
            observers,
            include_output,
            store: StateStore::new().with_symmetry(machine.opts.symmetry),
            canon: Canonicalizer::for_search(&machine.opts),
            scratch: Scratch::default(),
            chooser: ScriptChooser::default(),
            stats: Stats::default(),
            start,
            dead_ends: HashSet::new(),
            graph: liveness::applies(machine).then(Graph::default),
            growth_after: None,
            initial: None,
            growth: None,
        }
    }

    /// Explore everything reachable from `initial`; None when nothing stopped it.
    pub fn run(&mut self, initial: State) -> Result<Option<Stop>, TooDeep> {
        let stop = self.search(initial);
        self.finish_stats();
        stop
    }

    fn search(&mut self, initial: State) -> Result<Option<Stop>, TooDeep> {
        if self.growth_after.is_some() {
            self.initial = Some(initial.clone());
        }
        let root = self.insert(&initial);
        if let Some(found) = self.observers.iter().find_map(|o| o.new_state(&initial)) {
            if absorbed(self.observers, &found) {
                return Ok(None);
            }
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
        let base = self.canon.base_from_last_run(&initial, &self.scratch.ids);
        let mut stack = vec![Node::new(root.id, initial, None, kept_bytes).with_base(base)];
        let mut ticks = 0;
        let mut knows_ext = false;
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
                    Ok(st) => {
                        node.base = self.canon.base_by_traversal(
                            self.machine.program,
                            &st,
                            self.scratch.decoded_ids(),
                        );
                        node.state = Some(Box::new(st));
                        // A rebuilt state numbers its objects canonically: footprints
                        // taken on the dropped one do not apply to it.
                        node.prepared = false;
                        node.footprints.clear();
                    }
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
                if let Some(g) = &mut self.graph {
                    if state.is_finished() || (node.expand == Expand::AllAwake && !node.any_enabled)
                    {
                        g.end(node.id);
                    }
                }
                if !state.is_finished() && node.expand == Expand::AllAwake {
                    let any = node.any_enabled;
                    let found = self.observers.iter().find_map(|o| o.expanded(state, any));
                    if let Some(found) = found.filter(|f| !absorbed(self.observers, f)) {
                        let path = path_of(&stack);
                        return Ok(Some(Stop::Found { found, path }));
                    }
                }
                kept_bytes -= node.bytes;
                path_bytes -= node.bytes;
                stack.pop();
                continue;
            }
            if let (Some(futures), false) = (&self.persistent, node.chosen) {
                node.chosen = true;
                if let Some(set) = choose_at(self.machine, futures, &mut self.chooser, state) {
                    node.ample = set;
                }
            }
            if self.por && !node.prepared {
                node.prepared = true;
                if !self.recording && node.sleep == 0 {
                    // Nothing sleeps here and no successor will get a sleep set.
                    continue;
                }
                if let Some(stop) = self.run_sleepers(node) {
                    let path = path_of(&stack);
                    return Ok(Some(match stop {
                        Stop::Found { found, path: last } => Stop::Found {
                            found,
                            path: path.into_iter().chain(last).collect(),
                        },
                        Stop::Limit { reason, .. } => Stop::Limit { reason, path },
                    }));
                }
                continue;
            }
            let Some(state) = &node.state else {
                unreachable!("rebuilt above")
            };
            if !state.thread(node.tid).status.is_running() {
                node.next_thread();
                continue;
            }
            if node.tid < 64 && node.ample & (1 << node.tid) == 0 {
                // Not in the persistent set chosen here.
                node.next_thread();
                continue;
            }
            if self.por && !node.expand.includes(node.sleep, node.tid) {
                if node.expand == Expand::AllAwake && sleep::contains(node.sleep, node.tid) {
                    // A sleeper: its successors are not stored (or even run, when its
                    // footprint was carried here).
                    self.payoff.slept += 1;
                }
                node.next_thread();
                continue;
            }
            // A thread whose variants already ran finishes as it started.
            // The successors are canonicalised from this state's canonical form.
            self.canon.swap_base(&mut node.base);
            let next = if self.por && (self.recording || node.ran) {
                self.reduced_transition(node)
            } else {
                self.transition(node)
            };
            self.canon.swap_base(&mut node.base);
            match next {
                Next::Nothing => {}
                Next::Push(child) => {
                    if !knows_ext && self.graph.is_some() {
                        // The liveness check rebuilds states: the keeper must have seen
                        // the kind of extension data they hold (`Keeper::by_id`).
                        if let Some(s) = child.state.as_ref().filter(|s| s.ext.is_some()) {
                            keeper.by_id(s);
                            knows_ext = true;
                        }
                    }
                    kept_bytes += child.bytes;
                    path_bytes += child.bytes;
                    stack.push(child);
                    if stack.len() > MAX_PATH_NODES || path_bytes > MAX_PATH_TOTAL_BYTES {
                        self.diagnose_growth(&stack, true);
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
                            self.diagnose_growth(&stack, true);
                            return Err(TooDeep);
                        }
                        low.state = None;
                        low.base = None;
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
                self.diagnose_growth(&stack, false);
                if let Some(reason) = self.tick() {
                    let path = path_of(&stack);
                    return Ok(Some(Stop::Limit { reason, path }));
                }
            }
        }
        Ok(self.liveness(&keeper, root.id))
    }

    /// Every state can reach the program's end (`liveness`), or the hang.
    fn liveness(&mut self, keeper: &Keeper, root: u32) -> Option<Stop> {
        let graph = self.graph.take()?;
        let cx = liveness::Context {
            machine: self.machine,
            store: &self.store,
            keeper,
            include_output: self.include_output,
            root,
            asleep: self.por.then_some(&self.sleeps),
            parents: None,
        };
        liveness::stop(cx, graph, self.observers)
    }

    #[inline]
    fn end(&mut self, id: u32) {
        if let Some(g) = &mut self.graph {
            g.end(id);
        }
    }

    /// Generate `node`'s next transition and advance its cursor. A `Found` carries the
    /// failing move only; the caller prefixes the path.
    fn transition(&mut self, node: &mut Node) -> Next {
        let tid = node.tid;
        let Some(state) = &node.state else {
            unreachable!("a node is expanded whole")
        };
        if node.script.is_empty() && self.skips_blocked(state, tid) {
            node.next_thread();
            return Next::Nothing;
        }
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
                let error = Found::new(failure, thread);
                if absorbed(self.observers, &error) {
                    // A dead end: the thread moved, into an error.
                    node.any_enabled = true;
                    self.end(node.id);
                    return Next::Nothing;
                }
                return found(error, mv);
            }
            Ok(Step::Blocked | Step::Await) => return Next::Nothing,
            Ok(Step::Pruned) => {
                node.any_enabled = true;
                self.end(node.id);
                return Next::Nothing;
            }
            Ok(Step::Progress) => node.any_enabled = true,
        }
        self.arrive(node.id, mv, next, 0, Vec::new())
    }

    /// Whether `tid`'s transition from `state` surely blocks at once
    /// (`Machine::blocks_at_once`, checked on every state by the test observer
    /// `roundtrip::BlockedCheck`), so it need not run: it makes no choice, so its one
    /// variant blocks, and a blocked run leaves nothing but its discarded copy and a
    /// footprint (dropped: a thread none of whose variants can move gets none).
    fn skips_blocked(&self, state: &State, tid: ThreadId) -> bool {
        let skip = self.machine.blocks_at_once(state, tid);
        if skip {
            self.machine.skip_blocked_run();
        }
        skip
    }

    /// With the reduction: the threads `node` does not expand run once, for their
    /// footprints, whether they could move, their errors and the transition observers;
    /// nothing they reach is stored.
    fn run_sleepers(&mut self, node: &mut Node) -> Option<Stop> {
        let Some(state) = &node.state else {
            unreachable!("a node is expanded whole")
        };
        node.footprints.resize(state.threads.len(), None);
        if node.expand != Expand::AllAwake {
            // A revisit: the state was judged and its other threads run when it was
            // first expanded; a thread without a footprint here just does not sleep.
            return None;
        }
        for tid in 0..state.threads.len() as ThreadId {
            if node.footprints[tid as usize].is_some() {
                // Asleep, with the footprint it had where it was run: it can move.
                node.any_enabled = true;
                continue;
            }
            // Threads expanded before `node.tid` (or `node.tid` itself once it ran)
            // run again only after a rebuild.
            let done = tid < node.tid || (tid == node.tid && node.ran);
            if !state.thread(tid).status.is_running()
                || (node.expand.includes(node.sleep, tid) && !done)
            {
                continue;
            }
            let (touched, _, stop) =
                self.run_all(node.id, state, tid, false, &mut node.any_enabled);
            node.footprints[tid as usize] = touched;
            if stop.is_some() {
                return stop;
            }
        }
        None
    }

    /// Every choice variant of `tid`'s transition from `state`: their footprints
    /// together, what they reached (when `keep`), or the first error.
    fn run_all(
        &mut self,
        from: u32,
        state: &State,
        tid: ThreadId,
        keep: bool,
        any_enabled: &mut bool,
    ) -> (Option<Footprint>, VecDeque<(Move, State)>, Option<Stop>) {
        let mut touched = Footprint::default();
        let mut enabled = false;
        let mut reached = VecDeque::new();
        let mut script = Vec::new();
        if self.skips_blocked(state, tid) {
            // The one variant blocks: what the loop below ends with, without copying.
            self.payoff.run += 1;
            if self.recording && !self.payoff.pays() {
                self.recording = false;
            }
            return (None, reached, None);
        }
        loop {
            let mut next = State::clone(state);
            self.chooser.reset(&script);
            let (result, f) =
                self.machine
                    .run_transition_recorded(state, &mut next, tid, &mut self.chooser);
            touched.union_owned(f);
            self.payoff.run += 1;
            let taken = self.chooser.taken();
            let mv = Move {
                tid,
                choices: taken.iter().map(|c| c.0).collect(),
            };
            let advanced = advance_script(taken);
            let stop = |found: Found, mv: Move| {
                Some(Stop::Found {
                    found,
                    path: vec![mv],
                })
            };
            match result {
                Err(failure) => {
                    let thread = failure.thread.or(Some(tid));
                    let error = Found::new(failure, thread);
                    if !absorbed(self.observers, &error) {
                        return (None, reached, stop(error, mv));
                    }
                    // A dead end: the thread moved, into an error.
                    *any_enabled = true;
                    enabled = true;
                    self.end(from);
                }
                Ok(Step::Blocked | Step::Await) => {}
                Ok(Step::Pruned) => {
                    *any_enabled = true;
                    enabled = true;
                    self.end(from);
                }
                Ok(Step::Progress) => {
                    *any_enabled = true;
                    enabled = true;
                    if keep {
                        reached.push_back((mv, next));
                    } else if let Some(f) =
                        self.observers.iter().find_map(|o| o.transition(tid, &next))
                    {
                        if !absorbed(self.observers, &f) {
                            return (None, reached, stop(f, mv));
                        }
                        self.end(from);
                    }
                }
            }
            match advanced {
                Some(s) => script = s,
                None => {
                    if self.recording && !self.payoff.pays() {
                        self.recording = false;
                    }
                    // Only a thread that can move may sleep (see `sleep::child_sleep`).
                    return (enabled.then_some(touched), reached, None);
                }
            }
        }
    }

    /// With the reduction: run all of `node.tid`'s variants first (its footprint must
    /// be whole before its successors get their sleep sets), then store what they
    /// reached one at a time.
    fn reduced_transition(&mut self, node: &mut Node) -> Next {
        let tid = node.tid;
        if !node.ran {
            node.ran = true;
            let Some(state) = node.state.take() else {
                unreachable!("a node is expanded whole")
            };
            let (touched, reached, stop) =
                self.run_all(node.id, &state, tid, true, &mut node.any_enabled);
            node.state = Some(state);
            if let Some(stop) = stop {
                return Next::Stop(stop);
            }
            node.footprints[tid as usize] = touched;
            node.pending = reached;
        }
        let Some((mv, next)) = node.pending.pop_front() else {
            node.next_thread();
            return Next::Nothing;
        };
        let z = sleep::child_sleep(node.sleep, node.expand, &node.footprints, tid);
        // A sleeper's transition is the same in the successor (nothing on the way
        // touched what it touches), and the successor numbers objects as this state
        // does: it keeps its footprint, unless `tid` ended a thread (footprints depend
        // on how many run); then sleepers run again. A rebuilt state drops them.
        let stable = !node.footprints[tid as usize]
            .as_ref()
            .is_none_or(Footprint::ends_a_thread);
        // Nothing carried is an empty list (`run_sleepers` pads it): no vector per arrival.
        let carried = if stable && z != 0 {
            (0..node.footprints.len())
                .map(|u| {
                    if sleep::contains(z, u as ThreadId) {
                        node.footprints[u].clone()
                    } else {
                        None
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        self.arrive(node.id, mv, next, z, carried)
    }

    /// A transition by `mv` reached `next`, which gets the sleep set `sleep`: show it
    /// to the observers and store it; a new state, or a known one that must be expanded
    /// again for some threads (`sleep::revisit`), is pushed.
    fn arrive(
        &mut self,
        from: u32,
        mv: Move,
        mut next: State,
        sleep: Sleep,
        carried: Vec<Option<Footprint>>,
    ) -> Next {
        let tid = mv.tid;
        let found = |found: Found, mv: Move| {
            Next::Stop(Stop::Found {
                found,
                path: vec![mv],
            })
        };
        self.stats.transitions += 1;
        if let Some(f) = self.observers.iter().find_map(|o| o.transition(tid, &next)) {
            if absorbed(self.observers, &f) {
                self.end(from);
                return Next::Nothing;
            }
            return found(f, mv);
        }
        let ins = self.insert(&next);
        if let Some(g) = &mut self.graph {
            g.edge(from, ins.id);
        }
        let (sleep, carried) = if self.por && self.machine.opts.symmetry {
            // Name threads as the representative does (`sleep::renamed`); footprints
            // name threads too (their ends, their extension data): on a permuted
            // arrival sleepers run again.
            let order = self.canon.thread_order();
            if order.iter().enumerate().any(|(i, &t)| i as ThreadId != t) {
                (sleep::renamed(sleep, order), vec![None; carried.len()])
            } else {
                (sleep, carried)
            }
        } else {
            (sleep, carried)
        };
        if !ins.new {
            if !self.por || (!self.dead_ends.is_empty() && self.dead_ends.contains(&ins.id)) {
                return Next::Nothing;
            }
            let old = self.sleeps.get(&ins.id).copied().unwrap_or(0);
            let (need, keep) = sleep::revisit(old, sleep);
            if need == 0 {
                return Next::Nothing;
            }
            if keep == 0 {
                self.sleeps.remove(&ins.id);
            } else {
                self.sleeps.insert(ins.id, keep);
            }
            self.canon.to_representative(&mut next);
            let bytes = self.canon.chunks.byte_len();
            let base = self.canon.base_from_last_run(&next, &self.scratch.ids);
            return Next::Push(
                Node::new(ins.id, next, Some(mv), bytes)
                    .with_base(base)
                    .asleep(keep, Expand::Only(need), carried),
            );
        }
        if sleep != 0 {
            self.sleeps.insert(ins.id, sleep);
        }
        self.canon.to_representative(&mut next);
        let mut dead_end = false;
        if let Some(f) = self.observers.iter().find_map(|o| o.new_state(&next)) {
            if !absorbed(self.observers, &f) {
                return found(f, mv);
            }
            self.dead_ends.insert(ins.id);
            self.end(ins.id);
            dead_end = true;
        }
        let states = self.store.states() as u64;
        if let Some(reason) = self.observers.iter().find_map(|o| o.stored(states)) {
            return Next::Stop(Stop::Limit {
                reason,
                path: Vec::new(),
            });
        }
        if dead_end {
            return Next::Nothing;
        }
        let base = self.canon.base_from_last_run(&next, &self.scratch.ids);
        Next::Push(
            Node::new(ins.id, next, Some(mv), self.canon.chunks.byte_len())
                .with_base(base)
                .asleep(sleep, Expand::AllAwake, carried),
        )
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

    /// Once the search has run `growth_after`, or now when the path grew too deep
    /// (`now`: the breadth-first search that takes over has no path to diagnose):
    /// which variables keep taking new values along the current path (replayed from
    /// the initial state; what a limit's diagnosis says, early, for the progress
    /// reports).
    fn diagnose_growth(&mut self, stack: &[Node], now: bool) {
        let Some(after) = self.growth_after else {
            return;
        };
        if self.growth.is_some() || (!now && self.start.elapsed() < after) {
            return;
        }
        let Some(initial) = self.initial.take() else {
            return;
        };
        // Its first moves are enough to see a variable grow, and replaying them costs
        // a small share of the search so far (the whole path could cost half of it).
        let mut path = path_of(stack);
        path.truncate(GROWTH_SAMPLE_MOVES);
        if self.machine.opts.symmetry {
            // Moves name the threads of representatives: make them the program's own.
            if let Some(real) = super::symmetric_path::real_path(self.machine, &initial, &path) {
                path = real.moves;
            }
        }
        self.growth = Some(Arc::new(super::diagnosis::diagnose(
            self.machine,
            initial,
            &path,
        )));
    }

    fn tick(&self) -> Option<String> {
        let stats = Stats {
            states: self.store.states() as u64,
            transitions: self.stats.transitions,
            time: self.start.elapsed(),
            max_depth: self.stats.max_depth,
            growing: self.growth.clone(),
            ..Stats::default()
        };
        self.observers.iter().find_map(|o| o.tick(&stats))
    }

    fn finish_stats(&mut self) {
        self.stats.states = self.store.states() as u64;
        self.stats.stored_bytes = self.store.bytes() as u64;
        self.stats.contention = self.store.contention();
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

/// The persistent set at `state` (`persistent::choose`), running the threads it asks
/// about with every choice variant; what they reach is generated again when they are
/// expanded.
fn choose_at(
    machine: &Machine<'_>,
    futures: &Futures,
    chooser: &mut ScriptChooser,
    state: &State,
) -> Option<u64> {
    persistent::choose(machine, futures, state, &mut |tid| {
        let mut run = ThreadRun::default();
        let mut script: Vec<(u32, u32)> = Vec::new();
        loop {
            let mut next = State::clone(state);
            chooser.reset(&script);
            let (result, f) = machine.run_transition_recorded(state, &mut next, tid, chooser);
            run.footprint.union_owned(f);
            match result {
                Ok(Step::Blocked | Step::Await) => {}
                Ok(Step::Progress) => {
                    run.enabled = true;
                    run.advances |=
                        persistent::advances(futures, state.thread(tid), next.thread(tid));
                }
                _ => run.enabled = true,
            }
            match advance_script(chooser.taken()) {
                Some(s) => script = s,
                None => return run,
            }
        }
    })
}

fn path_of(stack: &[Node]) -> Vec<Move> {
    stack.iter().filter_map(|n| n.via.clone()).collect()
}
