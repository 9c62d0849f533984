//! Depth-first search on one worker: the cheapest way to show that no error is
//! reachable. Its stack holds the ids of the states on the current path, and whole
//! states only near its top, up to [`MAX_PATH_BYTES`]: a state lower down is rebuilt
//! from the store when the search backtracks to it (see `held`). A state is generated,
//! stored and expanded without ever being queued.
//!
//! It reports the first error it meets, on a path that is usually long; `explore` then
//! asks the breadth-first search (`search`) for the shortest one, so the counterexample
//! and the failing run's figures do not depend on which search found the error.

use super::chooser::Script;
use super::dpor::{self, Add, Edge, Event, Explored, Summary, Threads};
use super::expand::{self, Arrival, Expander, Outcome, Storage};
use super::footprint::Footprint;
use super::future::Futures;
use super::held::Keeper;
use super::liveness::{self, Graph};
use super::observers::{Found, Observer};
use super::search::Stop;
use super::sleep::{self, Expand, Payoff, Sleep};
use super::{Move, Stats};
use crate::interp::Machine;
use crate::state::{State, ThreadId};
use crate::store::{Base, Inserted, StateStore};
use std::collections::{HashMap, HashSet, VecDeque};
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
    include_output: bool,
    store: StateStore,
    /// Runs transitions and shows them to the observers (`expand`).
    gen: Expander<'a, 'p>,
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
    /// Dynamic partial-order reduction (`dpor`), instead of sleep and persistent sets.
    dpor: Option<Dpor>,
    /// With dynamic partial-order reduction: the hang check could not decide (a move
    /// of a thread not expanded leads to a state never stored); the search without
    /// the reduction decides instead.
    pub hangs_undecided: bool,
    /// The last `run_all` reached a successor (a variant that moved and was neither
    /// pruned nor ended by an observer).
    progressed: bool,
}

/// What dynamic partial-order reduction keeps beside the path: Tarjan's algorithm over
/// the explored graph, and the summaries of stored states (`dpor`).
#[derive(Default)]
struct Dpor {
    /// Objects up to this id are globals, named alike in every state.
    globals: u32,
    next_index: u32,
    /// Object numberings started (a state rebuilt from the store starts one).
    epochs: u32,
    /// States whose component is not closed yet, with their Tarjan index.
    open: HashMap<u32, u32>,
    tarjan: Vec<u32>,
    /// What an open state not on the path reaches so far.
    open_summaries: HashMap<u32, Summary>,
    /// The summary of each state whose component is closed.
    closed: HashMap<u32, Arc<Summary>>,
    /// The steps explored from each state the search left.
    edges: HashMap<u32, Box<[Edge]>>,
}

/// A node's part in dynamic partial-order reduction.
#[derive(Default)]
struct DporNode {
    /// Every thread has run once here (`enabled` is known).
    init: bool,
    /// The threads that can move here.
    enabled: Threads,
    /// The threads to expand here (the source set so far), and those expanded.
    backtrack: Threads,
    done: Threads,
    /// Tarjan's index and low link.
    index: u32,
    lowlink: u32,
    /// On a cycle through a revisited open state: expand fully, and the parent too
    /// unless this is its component's root.
    cyclic: bool,
    /// The numbering of objects the state's footprints use.
    epoch: u32,
    /// The step that led here (None at the root), and that of the thread being
    /// expanded here.
    incoming: Option<Box<Event>>,
    expanding: Option<Box<Event>>,
    /// What is reachable from here so far.
    reach: Summary,
    /// The steps explored from here so far.
    edges: Vec<Edge>,
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
    script: Script,
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
    /// With dynamic partial-order reduction.
    dp: Option<Box<DporNode>>,
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
            dp: None,
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
    /// With dynamic partial-order reduction: a state stored before.
    Known(u32),
    Stop(Stop),
}

/// The current path and what it holds.
struct Path {
    stack: Vec<Node>,
    /// Nodes from `first_kept` up keep their states whole, `kept_bytes` in all.
    kept_bytes: usize,
    first_kept: usize,
    /// Bytes of all the states on the path, held or not.
    path_bytes: usize,
    /// The keeper has seen the kind of extension data the states hold
    /// (`Keeper::by_id`).
    knows_ext: bool,
}

/// What one step of the search at the top of the path did.
enum Flow {
    /// Went on without generating a transition.
    Continue,
    /// Generated a transition.
    Ran,
    Stop(Stop),
}

impl<'a, 'p> DepthFirst<'a, 'p> {
    pub fn new(
        machine: &'a Machine<'p>,
        observers: &'a [&'a dyn Observer],
        include_output: bool,
        start: Instant,
        por: bool,
        dpor: bool,
    ) -> Self {
        let dpor = dpor.then(Dpor::default);
        let (persistent, por) = expand::reduction(machine, por && dpor.is_none());
        DepthFirst {
            persistent,
            por,
            dpor,
            progressed: false,
            hangs_undecided: false,
            sleeps: HashMap::new(),
            recording: por,
            payoff: Payoff::default(),
            machine,
            include_output,
            store: StateStore::new().with_symmetry(machine.opts.symmetry && !machine.opts.dpor),
            gen: Expander::new(machine, observers),
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
        if let Some(found) = self.gen.judge_initial(&initial) {
            return Ok(found.map(|found| Stop::Found {
                found,
                path: Vec::new(),
            }));
        }
        let keeper = Keeper::new(
            self.machine,
            &self.store,
            &self.gen.canon,
            &mut self.gen.scratch,
            root.id,
            &initial,
        );
        let bytes = self.gen.canon.chunks.byte_len();
        let base = self
            .gen
            .canon
            .base_from_last_run(&initial, &self.gen.scratch.ids);
        let mut root_node = Node::new(root.id, initial, None, bytes).with_base(base);
        if let Some(d) = &mut self.dpor {
            d.globals = root_node.state.as_ref().map_or(0, |s| s.memory.globals);
            d.open.insert(root.id, 0);
            d.tarjan.push(root.id);
            d.next_index = 1;
            root_node.dp = Some(Box::default());
        }
        let mut path = Path {
            stack: vec![root_node],
            kept_bytes: bytes,
            first_kept: 0,
            path_bytes: bytes,
            knows_ext: false,
        };
        let mut ticks = 0;
        while !path.stack.is_empty() {
            match self.step(&keeper, &mut path)? {
                Flow::Continue => continue,
                Flow::Ran => {}
                Flow::Stop(stop) => return Ok(Some(stop)),
            }
            ticks += 1;
            if ticks >= TICK {
                ticks = 0;
                self.diagnose_growth(&path.stack, false);
                if let Some(reason) = self.tick() {
                    let path = path_of(&path.stack);
                    return Ok(Some(Stop::Limit { reason, path }));
                }
            }
        }
        Ok(self.liveness(&keeper, root.id))
    }

    /// One step at the top of the path: finish its state, prepare it, pass over a
    /// thread it does not expand, or generate the next transition.
    fn step(&mut self, keeper: &Keeper, path: &mut Path) -> Result<Flow, TooDeep> {
        if self.dpor.is_some() {
            return self.dpor_step(keeper, path);
        }
        if path.stack.last().is_some_and(|n| n.state.is_none()) {
            if let Err(stop) = self.restore(keeper, path) {
                return Ok(Flow::Stop(stop));
            }
        }
        let node = path.stack.last_mut().expect("the loop holds a node");
        let Some(state) = &node.state else {
            unreachable!("rebuilt above")
        };
        if state.is_finished() || node.tid as usize >= state.threads.len() {
            return Ok(self.finish_node(path));
        }
        if let (Some(futures), false) = (&self.persistent, node.chosen) {
            node.chosen = true;
            if let Some(set) = self.gen.persistent_set(futures, state, false).0 {
                node.ample = set;
            }
        }
        if self.por && !node.prepared {
            node.prepared = true;
            if !self.recording && node.sleep == 0 {
                // Nothing sleeps here and no successor will get a sleep set.
                return Ok(Flow::Continue);
            }
            return Ok(match self.run_sleepers(node) {
                Some(Stop::Found { found, path: last }) => Flow::Stop(Stop::Found {
                    found,
                    path: path_of(&path.stack).into_iter().chain(last).collect(),
                }),
                Some(Stop::Limit { reason, .. }) => Flow::Stop(Stop::Limit {
                    reason,
                    path: path_of(&path.stack),
                }),
                None => Flow::Continue,
            });
        }
        if self.passes_over(node) {
            node.next_thread();
            return Ok(Flow::Continue);
        }
        // A thread whose variants already ran finishes as it started.
        // The successors are canonicalised from this state's canonical form.
        self.gen.canon.swap_base(&mut node.base);
        let next = if self.por && (self.recording || node.ran) {
            self.reduced_transition(node)
        } else {
            self.transition(node)
        };
        self.gen.canon.swap_base(&mut node.base);
        match next {
            Next::Nothing | Next::Known(_) => {}
            Next::Push(child) => self.push(keeper, path, child)?,
            Next::Stop(Stop::Found { found, path: last }) => {
                let mut path = path_of(&path.stack);
                path.extend(last);
                return Ok(Flow::Stop(Stop::Found { found, path }));
            }
            Next::Stop(Stop::Limit { reason, .. }) => {
                let path = path_of(&path.stack);
                return Ok(Flow::Stop(Stop::Limit { reason, path }));
            }
        }
        Ok(Flow::Ran)
    }

    /// Back to a state dropped on the way down: rebuild it from the store.
    fn restore(&mut self, keeper: &Keeper, path: &mut Path) -> Result<(), Stop> {
        let node = path.stack.last_mut().expect("the loop holds a node");
        match keeper.rebuild_id(
            self.machine,
            &self.store,
            &self.gen.canon,
            &mut self.gen.scratch,
            node.id,
            &node.output,
        ) {
            Ok(st) => {
                node.base = self.gen.canon.base_by_traversal(
                    self.machine.program,
                    &st,
                    self.gen.scratch.decoded_ids(),
                );
                node.state = Some(Box::new(st));
                // A rebuilt state numbers its objects canonically: footprints
                // taken on the dropped one do not apply to it.
                node.prepared = false;
                node.footprints.clear();
            }
            Err(failure) => {
                let found = Found::new(failure, None);
                let path = path_of(&path.stack);
                return Err(Stop::Found { found, path });
            }
        }
        path.kept_bytes += node.bytes;
        path.first_kept = path.stack.len() - 1;
        Ok(())
    }

    /// Every transition of the top state has been generated: judge the state and leave
    /// it.
    fn finish_node(&mut self, path: &mut Path) -> Flow {
        let node = path.stack.last().expect("the loop holds a node");
        let Some(state) = &node.state else {
            unreachable!("rebuilt before it is expanded")
        };
        if let Some(g) = &mut self.graph {
            if state.is_finished() || (node.expand == Expand::AllAwake && !node.any_enabled) {
                g.end(node.id);
            }
        }
        if !state.is_finished() && node.expand == Expand::AllAwake {
            if let Some(found) = self.gen.judge_expanded(state, node.any_enabled) {
                let path = path_of(&path.stack);
                return Flow::Stop(Stop::Found { found, path });
            }
        }
        path.kept_bytes -= node.bytes;
        path.path_bytes -= node.bytes;
        path.stack.pop();
        Flow::Continue
    }

    /// Whether `node` does not expand its current thread: it cannot move, is not in the
    /// persistent set chosen there, or sleeps.
    fn passes_over(&mut self, node: &Node) -> bool {
        let Some(state) = &node.state else {
            unreachable!("rebuilt before it is expanded")
        };
        if !state.thread(node.tid).status.is_running() {
            return true;
        }
        if node.tid < 64 && node.ample & (1 << node.tid) == 0 {
            // Not in the persistent set chosen here.
            return true;
        }
        if self.por && !node.expand.includes(node.sleep, node.tid) {
            if node.expand == Expand::AllAwake && sleep::contains(node.sleep, node.tid) {
                // A sleeper: its successors are not stored (or even run, when its
                // footprint was carried here).
                self.payoff.slept += 1;
            }
            return true;
        }
        false
    }

    /// Push a new state on the path, and drop the lowest whole states past
    /// [`MAX_PATH_BYTES`].
    fn push(&mut self, keeper: &Keeper, path: &mut Path, child: Node) -> Result<(), TooDeep> {
        if !path.knows_ext && self.graph.is_some() {
            // The liveness check rebuilds states: the keeper must have seen the kind of
            // extension data they hold (`Keeper::by_id`).
            if let Some(s) = child.state.as_ref().filter(|s| s.ext.is_some()) {
                keeper.by_id(s);
                path.knows_ext = true;
            }
        }
        path.kept_bytes += child.bytes;
        path.path_bytes += child.bytes;
        path.stack.push(child);
        if path.stack.len() > MAX_PATH_NODES || path.path_bytes > MAX_PATH_TOTAL_BYTES {
            self.diagnose_growth(&path.stack, true);
            return Err(TooDeep);
        }
        self.stats.max_depth = self.stats.max_depth.max(path.stack.len() as u64);
        while path.kept_bytes > MAX_PATH_BYTES {
            // Drop the lowest whole state (never the one being expanded).
            if path.first_kept + 1 >= path.stack.len() {
                break;
            }
            let low = &mut path.stack[path.first_kept];
            if !low.state.as_ref().is_some_and(|s| keeper.by_id(s)) {
                self.diagnose_growth(&path.stack, true);
                return Err(TooDeep);
            }
            low.state = None;
            low.base = None;
            path.kept_bytes -= low.bytes;
            path.first_kept += 1;
        }
        Ok(())
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
            // With dynamic partial-order reduction: the threads a state did not expand.
            asleep: (self.por || self.dpor.is_some()).then_some(&self.sleeps),
            parents: None,
        };
        let stop = liveness::stop(cx, graph, self.gen.observers);
        if self.dpor.is_some() && matches!(stop, Some(Stop::Limit { .. })) {
            self.hangs_undecided = true;
        }
        stop
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
        if node.script.is_empty() && self.gen.skips_blocked(state, tid) {
            node.next_thread();
            return Next::Nothing;
        }
        let mut succ = State::clone(state);
        let (ran, next) = self.gen.variant(state, &mut succ, tid, &node.script, None);
        match next {
            Some(s) => node.script = s,
            None => node.next_thread(),
        }
        match self.gen.judge(ran.result, tid) {
            Outcome::Error(found) => {
                return Next::Stop(Stop::Found {
                    found,
                    path: vec![ran.mv],
                })
            }
            Outcome::Blocked => return Next::Nothing,
            Outcome::DeadEnd => {
                node.any_enabled = true;
                self.end(node.id);
                return Next::Nothing;
            }
            Outcome::Progress => node.any_enabled = true,
        }
        self.arrive(node.id, ran.mv, succ, 0, Vec::new())
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
            let (touched, enabled, _, stop) =
                self.run_all(node.id, state, tid, false, &mut node.any_enabled, false);
            node.footprints[tid as usize] = enabled.then_some(touched);
            if stop.is_some() {
                return stop;
            }
        }
        None
    }

    /// Every choice variant of `tid`'s transition from `state`: their footprints
    /// together, whether any could move, what they reached (when `keep`), or the first
    /// error. With `blocked_too`, a thread that surely blocks runs too (for the
    /// footprint of what it read to decide so).
    fn run_all(
        &mut self,
        from: u32,
        state: &State,
        tid: ThreadId,
        keep: bool,
        any_enabled: &mut bool,
        blocked_too: bool,
    ) -> (Footprint, bool, VecDeque<(Move, State)>, Option<Stop>) {
        let mut touched = Footprint::default();
        let mut enabled = false;
        self.progressed = false;
        let mut reached = VecDeque::new();
        let mut script = Script::new();
        if !blocked_too && self.gen.skips_blocked(state, tid) {
            // The one variant blocks: what the loop below ends with, without copying.
            self.payoff.run += 1;
            if self.recording && !self.payoff.pays() {
                self.recording = false;
            }
            return (touched, false, reached, None);
        }
        loop {
            let mut succ = state.clone();
            let (ran, advanced) =
                self.gen
                    .variant(state, &mut succ, tid, &script, Some(&mut touched));
            self.payoff.run += 1;
            let stop = |found: Found, mv: Move| {
                Some(Stop::Found {
                    found,
                    path: vec![mv],
                })
            };
            let outcome = self.gen.judge(ran.result, tid);
            if outcome.moved() {
                *any_enabled = true;
                enabled = true;
            }
            match outcome {
                Outcome::Error(found) => return (touched, enabled, reached, stop(found, ran.mv)),
                Outcome::Blocked => {}
                Outcome::DeadEnd => self.end(from),
                Outcome::Progress if keep => {
                    self.progressed = true;
                    reached.push_back((ran.mv, succ))
                }
                Outcome::Progress => match self.gen.observe_transition(tid, &succ) {
                    Some(Outcome::Error(found)) => {
                        return (touched, enabled, reached, stop(found, ran.mv))
                    }
                    Some(_) => self.end(from),
                    None => self.progressed = true,
                },
            }
            match advanced {
                Some(s) => script = s,
                None => {
                    if self.recording && !self.payoff.pays() {
                        self.recording = false;
                    }
                    return (touched, enabled, reached, None);
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
            let (touched, enabled, reached, stop) =
                self.run_all(node.id, &state, tid, true, &mut node.any_enabled, false);
            node.state = Some(state);
            if let Some(stop) = stop {
                return Next::Stop(stop);
            }
            // Only a thread that can move may sleep (see `sleep::child_sleep`).
            node.footprints[tid as usize] = enabled.then_some(touched);
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
        self.stats.transitions += 1;
        let at = Storage {
            store: &self.store,
            include_output: self.include_output,
            renames: self.por && self.machine.opts.symmetry,
        };
        let arrival = self
            .gen
            .arrive(&at, from, mv.tid, &mut next, sleep, self.graph.as_mut());
        let Arrival::Stored {
            ins,
            sleep,
            permuted,
            dead_end,
            limit,
        } = arrival
        else {
            return match arrival {
                Arrival::Observed(Outcome::Error(found)) | Arrival::Failed(found) => {
                    Next::Stop(Stop::Found {
                        found,
                        path: vec![mv],
                    })
                }
                _ => Next::Nothing,
            };
        };
        // Footprints name threads too (their ends, their extension data): on a permuted
        // arrival sleepers run again.
        let carried = if permuted {
            vec![None; carried.len()]
        } else {
            carried
        };
        if !ins.new {
            if self.dpor.is_some() {
                return Next::Known(ins.id);
            }
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
            self.gen.canon.to_representative(&mut next);
            let bytes = self.gen.canon.chunks.byte_len();
            let base = self
                .gen
                .canon
                .base_from_last_run(&next, &self.gen.scratch.ids);
            return Next::Push(
                Node::new(ins.id, next, Some(mv), bytes)
                    .with_base(base)
                    .asleep(keep, Expand::Only(need), carried),
            );
        }
        if sleep != 0 {
            self.sleeps.insert(ins.id, sleep);
        }
        if dead_end {
            self.dead_ends.insert(ins.id);
        }
        if let Some(reason) = limit {
            return Next::Stop(Stop::Limit {
                reason,
                path: Vec::new(),
            });
        }
        if dead_end {
            return Next::Nothing;
        }
        let base = self
            .gen
            .canon
            .base_from_last_run(&next, &self.gen.scratch.ids);
        Next::Push(
            Node::new(ins.id, next, Some(mv), self.gen.canon.chunks.byte_len())
                .with_base(base)
                .asleep(sleep, Expand::AllAwake, carried),
        )
    }

    /// Store `st`.
    fn insert(&mut self, st: &State) -> Inserted {
        self.store.insert_state(
            &mut self.gen.canon,
            &mut self.gen.scratch,
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
        self.growth = Some(Arc::new(super::diagnosis::diagnose_sample(
            self.machine,
            initial,
            path_of(stack),
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
        self.gen.observers.iter().find_map(|o| o.tick(&stats))
    }

    fn finish_stats(&mut self) {
        expand::finish_stats(&mut self.stats, self.machine, &self.store, self.start, 0);
    }
}

fn path_of(stack: &[Node]) -> Vec<Move> {
    stack.iter().filter_map(|n| n.via.clone()).collect()
}

/// Dynamic partial-order reduction (`dpor`): the same path, expanded by source sets.
impl DepthFirst<'_, '_> {
    /// One step at the top of the path under dynamic partial-order reduction: run
    /// every thread once at a new node, expand the next thread of its backtrack set,
    /// store one successor, or leave the node.
    fn dpor_step(&mut self, keeper: &Keeper, path: &mut Path) -> Result<Flow, TooDeep> {
        if path.stack.last().is_some_and(|n| n.state.is_none()) {
            if let Err(stop) = self.restore(keeper, path) {
                return Ok(Flow::Stop(stop));
            }
            // The rebuilt state numbers its objects canonically: a new numbering.
            let d = self.dpor.as_mut().expect("dpor is on");
            d.epochs += 1;
            let node = path.stack.last_mut().expect("the loop holds a node");
            node.dp.as_mut().expect("a dpor node").epoch = d.epochs;
        }
        let node = path.stack.last_mut().expect("the loop holds a node");
        let Some(state) = node.state.take() else {
            unreachable!("rebuilt above")
        };
        let flow = self.dpor_node(path, state);
        Ok(match flow {
            DporFlow::Flow(flow) => flow,
            DporFlow::Finish => self.dpor_finish(path),
            DporFlow::Push(child) => {
                self.push(keeper, path, *child)?;
                Flow::Ran
            }
        })
    }

    fn dpor_node(&mut self, path: &mut Path, state: Box<State>) -> DporFlow {
        let depth = path.stack.len() - 1;
        let node = &mut path.stack[depth];
        if state.is_finished() {
            node.state = Some(state);
            return DporFlow::Finish;
        }
        let mut dp = node.dp.take().expect("a dpor node");
        let flow = self.dpor_expand(path, &state, &mut dp);
        let node = &mut path.stack[depth];
        node.state = Some(state);
        node.dp = Some(dp);
        flow
    }

    fn dpor_expand(&mut self, path: &mut Path, state: &State, dp: &mut DporNode) -> DporFlow {
        let depth = path.stack.len() - 1;
        let found = |stack: &[Node], stop: Stop| match stop {
            Stop::Found { found, path: last } => Stop::Found {
                found,
                path: path_of(stack).into_iter().chain(last).collect(),
            },
            Stop::Limit { reason, .. } => Stop::Limit {
                reason,
                path: path_of(stack),
            },
        };
        if !dp.init {
            dp.init = true;
            if state.threads.len() > dpor::MAX_THREADS {
                let reason = format!(
                    "--experimental-dpor handles at most {} threads",
                    dpor::MAX_THREADS
                );
                return DporFlow::Flow(Flow::Stop(found(
                    &path.stack,
                    Stop::Limit {
                        reason,
                        path: Vec::new(),
                    },
                )));
            }
            // Every thread runs once: which can move, their errors, and the footprint
            // of what a blocked one read.
            let id = path.stack[depth].id;
            let mut blocked = Vec::new();
            let mut any_enabled = false;
            for tid in 0..state.threads.len() as ThreadId {
                if !state.thread(tid).status.is_running() {
                    continue;
                }
                let (touched, enabled, _, stop) =
                    self.run_all(id, state, tid, false, &mut any_enabled, true);
                if let Some(stop) = stop {
                    return DporFlow::Flow(Flow::Stop(found(&path.stack, stop)));
                }
                // A thread whose every move is pruned (or ends at an absorbed error)
                // leads to no run: for the reduction it cannot move, like a blocked one.
                if enabled && self.progressed {
                    dp.enabled |= dpor::bit(tid);
                } else {
                    blocked.push((tid, touched));
                }
            }
            path.stack[depth].any_enabled |= any_enabled;
            dp.backtrack |= dp.enabled & dp.enabled.wrapping_neg();
            if dp.cyclic {
                dp.backtrack |= dp.enabled;
            }
            for (tid, touched) in blocked {
                let adds = self
                    .dpor_races(&path.stack, dp, state, tid, touched, (0, 0, false))
                    .1;
                Self::apply(&mut path.stack, dp, &adds);
            }
            return DporFlow::Flow(Flow::Continue);
        }
        let node = &mut path.stack[depth];
        if !node.ran {
            let todo = dp.backtrack & !dp.done;
            if todo == 0 {
                return DporFlow::Finish;
            }
            let tid = todo.trailing_zeros() as ThreadId;
            dp.done |= dpor::bit(tid);
            node.tid = tid;
            node.script.clear();
            if dp.enabled & dpor::bit(tid) == 0 {
                // A race asked for a thread that cannot move here: expand every
                // thread that can.
                dp.backtrack |= dp.enabled;
                return DporFlow::Flow(Flow::Continue);
            }
            let id = node.id;
            let mut any_enabled = false;
            self.gen.canon.swap_base(&mut node.base);
            let (touched, _, reached, stop) =
                self.run_all(id, state, tid, true, &mut any_enabled, true);
            let node = &mut path.stack[depth];
            self.gen.canon.swap_base(&mut node.base);
            node.any_enabled |= any_enabled;
            if let Some(stop) = stop {
                return DporFlow::Flow(Flow::Stop(found(&path.stack, stop)));
            }
            if reached.iter().any(|(_, s)| s.is_finished()) {
                // The process ended (an exit, or `main` returned): the other threads'
                // next steps here never run after it, so their races with it are
                // never seen on the path; they are reversed here.
                dp.backtrack |= dp.enabled;
            }
            // The threads the step created (ids are never reused: a new one is a new
            // index).
            let created = reached
                .iter()
                .flat_map(|(_, s)| state.threads.len()..s.threads.len())
                .fold(0, |set, c| set | dpor::bit(c as ThreadId));
            // Whether it ran a thread left alone on (`dpor::new_step`).
            let folded = !state.at_most_one_running()
                && reached.iter().any(|(_, s)| s.at_most_one_running());
            // The threads it joined: ended before, joined after.
            let joined = reached.iter().fold(0, |set, (_, s)| {
                (0..state.threads.len())
                    .filter(|&u| !state.threads[u].joined && s.threads[u].joined)
                    .fold(set, |set, u| set | dpor::bit(u as ThreadId))
            });
            node.ran = true;
            node.pending = reached;
            let (event, adds) = self.dpor_races(
                &path.stack,
                dp,
                state,
                tid,
                touched,
                (created, joined, folded),
            );
            Self::apply(&mut path.stack, dp, &adds);
            dp.reach.add(tid, event.coarse());
            dp.edges.push(Edge {
                tid,
                coarse: event.coarse().clone(),
                to: Vec::new(),
            });
            dp.expanding = Some(Box::new(event));
            return DporFlow::Flow(Flow::Continue);
        }
        let Some((mv, next)) = node.pending.pop_front() else {
            node.ran = false;
            return DporFlow::Flow(Flow::Continue);
        };
        let from = node.id;
        self.gen.canon.swap_base(&mut node.base);
        let next = self.arrive(from, mv, next, 0, Vec::new());
        self.gen.canon.swap_base(&mut path.stack[depth].base);
        match next {
            Next::Nothing => DporFlow::Flow(Flow::Ran),
            Next::Stop(stop) => DporFlow::Flow(Flow::Stop(found(&path.stack, stop))),
            Next::Known(id) => {
                self.dpor_revisit(&mut path.stack, dp, id);
                DporFlow::Flow(Flow::Ran)
            }
            Next::Push(mut child) => {
                if let Some(edge) = dp.edges.last_mut() {
                    edge.to.push(child.id);
                }
                let d = self.dpor.as_mut().expect("dpor is on");
                let index = d.next_index;
                d.next_index += 1;
                d.open.insert(child.id, index);
                d.tarjan.push(child.id);
                let incoming = dp.expanding.clone();
                child.dp = Some(Box::new(DporNode {
                    index,
                    lowlink: index,
                    epoch: incoming.as_ref().map_or(dp.epoch, |e| e.epoch),
                    incoming,
                    ..DporNode::default()
                }));
                DporFlow::Push(Box::new(child))
            }
        }
    }

    /// The steps on the path (step j from node j) and each node's backtrack set; the
    /// top node's are `top`'s (taken out of the path while it is expanded).
    fn dpor_path<'s>(stack: &'s [Node], top: &'s DporNode) -> (Vec<&'s Event>, Vec<Threads>) {
        let below = &stack[..stack.len() - 1];
        let events = below
            .iter()
            .skip(1)
            .map(|n| n.dp.as_ref().and_then(|d| d.incoming.as_deref()))
            .chain((stack.len() > 1).then_some(top.incoming.as_deref()))
            .map(|e| e.expect("a step into every node but the root"))
            .collect();
        let mut backtrack: Vec<Threads> = stack[..stack.len() - 1]
            .iter()
            .map(|n| n.dp.as_ref().map_or(0, |d| d.backtrack))
            .collect();
        backtrack.push(top.backtrack);
        (events, backtrack)
    }

    /// The step of `tid` with footprint `touched` from the top node, creating the
    /// threads `created`, joining the threads `joined`, running a thread left alone on
    /// when `folded` (`dpor::new_step`), and the backtrack points its races add.
    fn dpor_races(
        &self,
        stack: &[Node],
        top: &DporNode,
        state: &State,
        tid: ThreadId,
        touched: Footprint,
        (created, joined, folded): (Threads, Threads, bool),
    ) -> (Event, Vec<Add>) {
        let globals = self.dpor.as_ref().map_or(0, |d| d.globals);
        let coarse = touched.coarsened_in(globals, state, tid);
        let (events, backtrack) = Self::dpor_path(stack, top);
        dpor::new_step(
            &events, &backtrack, tid, touched, coarse, top.epoch, created, joined, folded,
        )
    }

    /// Add backtrack points; the top node's set is `top`'s.
    fn apply(stack: &mut [Node], top: &mut DporNode, adds: &[Add]) {
        let last = stack.len() - 1;
        for add in adds {
            let at = match add {
                Add::One { at, .. } | Add::All { at, .. } => *at,
            };
            let dp = if at == last {
                &mut *top
            } else {
                stack[at].dp.as_deref_mut().expect("a dpor node")
            };
            match *add {
                Add::One { thread, .. } => dp.backtrack |= dpor::bit(thread),
                Add::All { threads, .. } => dp.backtrack |= threads & dp.enabled,
            }
        }
    }

    /// The step being expanded at the top reached `id`, a state stored before: replay
    /// the races its summary stands for, and on a cycle expand fully.
    fn dpor_revisit(&mut self, stack: &mut [Node], top: &mut DporNode, id: u32) {
        if self.dead_ends.contains(&id) {
            return;
        }
        if let Some(edge) = top.edges.last_mut() {
            edge.to.push(id);
        }
        let d = self.dpor.as_mut().expect("dpor is on");
        let closed = d.closed.get(&id).cloned();
        let is_closed = closed.is_some();
        let summary: Arc<Summary> = if let Some(s) = closed {
            s
        } else if let Some(&index) = d.open.get(&id) {
            // On a cycle through the path (`dpor`, "Cycles").
            top.lowlink = top.lowlink.min(index);
            top.cyclic = true;
            top.backtrack |= top.enabled;
            let partial = d.open_summaries.get(&id).cloned().or_else(|| {
                stack
                    .iter()
                    .find(|n| n.id == id)
                    .and_then(|n| n.dp.as_ref())
                    .map(|dp| dp.reach.clone())
            });
            // The top node itself: its own reach.
            Arc::new(partial.unwrap_or_else(|| top.reach.clone()))
        } else {
            return;
        };
        let via = top.expanding.as_ref().map(|e| e.tid);
        top.reach.absorb(&summary, via);
        let (mut events, backtrack) = Self::dpor_path(stack, top);
        let edge = top.expanding.as_deref().expect("a step being expanded");
        events.push(edge);
        let d = self.dpor.as_ref().expect("dpor is on");
        let summary_of = |s: u32| d.closed.get(&s).map(|a| &**a);
        let explored = is_closed.then(|| Explored {
            edges: d.edges.get(&id).map_or(&[], |e| &e[..]),
            summary_of: &summary_of,
        });
        let adds = dpor::replay(&events, &backtrack, &summary, explored.as_ref());
        Self::apply(stack, top, &adds);
    }

    /// Leave the top node: judge it (`finish_node`), close its component when it is
    /// the root, and hand its reach, low link and cycle mark to its parent.
    fn dpor_finish(&mut self, path: &mut Path) -> Flow {
        let node = path.stack.last_mut().expect("the loop holds a node");
        let id = node.id;
        let dp = node.dp.take().expect("a dpor node");
        let flow = self.finish_node(path);
        if let Flow::Stop(_) = flow {
            return flow;
        }
        let unexpanded = dp.enabled & !dp.done;
        if unexpanded != 0 && self.graph.is_some() {
            self.sleeps.insert(id, unexpanded);
        }
        let d = self.dpor.as_mut().expect("dpor is on");
        let parent = path.stack.last_mut().and_then(|n| n.dp.as_deref_mut());
        // The step from the parent here: its thread's first step is that one.
        let via = dp.incoming.as_ref().map(|e| e.tid);
        d.edges.insert(id, dp.edges.into_boxed_slice());
        if dp.lowlink == dp.index {
            let mut reach = dp.reach;
            let mut members = vec![id];
            while let Some(m) = d.tarjan.pop() {
                d.open.remove(&m);
                if m == id {
                    break;
                }
                if let Some(s) = d.open_summaries.remove(&m) {
                    reach.union(&s);
                }
                members.push(m);
            }
            let reach = Arc::new(reach);
            if let Some(p) = parent {
                p.reach.absorb(&reach, via);
            }
            for m in members {
                d.closed.insert(m, reach.clone());
            }
        } else {
            if let Some(p) = parent {
                p.reach.absorb(&dp.reach, via);
                p.lowlink = p.lowlink.min(dp.lowlink);
                if dp.cyclic {
                    p.cyclic = true;
                    p.backtrack |= p.enabled;
                }
            }
            d.open_summaries.insert(id, dp.reach);
        }
        flow
    }
}

/// What `dpor_node` asks of the path.
enum DporFlow {
    Flow(Flow),
    Finish,
    Push(Box<Node>),
}
