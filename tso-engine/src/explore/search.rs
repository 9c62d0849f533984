//! Level-synchronous breadth-first search over the store's state ids, by one or more
//! workers sharing one store. Each level is a list of state ids in a fixed order (with
//! what `held` keeps beside an id); a state is rebuilt from the store when it is
//! expanded and dropped once its successors are generated, so memory holds the store
//! plus one or two levels of ids.
//!
//! Determinism: every successor gets a key (its parent's index in the level, then its
//! rank among the parent's successors) and a weight (the stores left delayed by the
//! flush choices on its path, `NativeCx::choose_flush`). After a level, a new state's
//! parent is the discoverer with the smallest (weight, key) and the next level is
//! sorted by key, so the tree, the state count and every counterexample are the same
//! for any number of workers. Breadth-first order makes a counterexample a shortest
//! one, and the weight makes it, among the shortest, one that delays fewest stores: the
//! least relaxed run explains a TSO bug best. A level in which an error shows up is
//! still finished, so that the smallest error wins and the state count of a failing
//! run does not depend on the workers either.

use super::chooser::Script;
use super::expand::{self, Arrival, Expander, Outcome, Ran, Storage};
use super::footprint::Footprint;
use super::future::Futures;
use super::held::{Held, Keeper, Replayer};
use super::liveness::{self, Graph};
use super::observers::{Found, Observer};
use super::parents::{Parents, StateId};
use super::sleep::{self, Expand, Payoff, Sleep};
use super::{Move, Stats};
use crate::error::ErrorKind;
use crate::interp::Machine;
use crate::state::{State, ThreadId};
use crate::store::StateStore;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex, OnceLock, RwLock};
use std::time::Instant;

/// Why the search stopped before exhausting the state space.
pub enum Stop {
    /// An error, reached by `path`.
    Found { found: Found, path: Vec<Move> },
    /// A limit (or an observer) ended the search; `path` leads to a state of the
    /// level being expanded.
    Limit { reason: String, path: Vec<Move> },
}

/// States a worker takes from the level at a time.
const BATCH: usize = 16;
/// Smaller levels are expanded by the merging thread alone.
const PARALLEL_MIN: usize = 4 * BATCH;

/// A state of the level: its id, the weight of its path, and what is held beside it;
/// with partial-order reduction, its sleep set and which threads to expand.
struct Open {
    id: StateId,
    weight: u64,
    held: Held,
    sleep: Sleep,
    expand: Expand,
}

type Level = Vec<Open>;

pub struct Search<'a, 'p> {
    machine: &'a Machine<'p>,
    observers: &'a [&'a dyn Observer],
    include_output: bool,
    jobs: usize,
    store: StateStore,
    parents: Mutex<Parents>,
    pub stats: Stats,
    start: Instant,
    transitions: AtomicU64,
    /// A limit was hit: every worker stops.
    stop: AtomicBool,
    /// The last state of the level being expanded (where a limit's path leads).
    frontier: Mutex<Option<StateId>>,
    /// Holds open states by id, or whole (set once the initial state is stored).
    keeper: Option<Keeper>,
    /// Partial-order reduction by sleep sets (`sleep`).
    por: bool,
    /// Partial-order reduction by persistent sets (`persistent`), with the program's
    /// static futures; exclusive with sleep sets.
    persistent: Option<Futures>,
    /// The sleep set each state of the earlier levels keeps (absent: empty); written
    /// only between levels.
    sleeps: RwLock<HashMap<StateId, Sleep>>,
    /// Footprints are still recorded and successors given sleep sets (`Payoff`);
    /// changed only between levels, from the sums of `payoff_run` and `payoff_slept`.
    recording: AtomicBool,
    payoff_run: AtomicU64,
    payoff_slept: AtomicU64,
    /// Run first on each worker thread this search starts.
    pub worker_start: Option<super::WorkerStart>,
    /// The growth diagnosis shown in progress reports once the search has run
    /// [`super::GROWTH_AFTER`]: the depth-first search's this one took over from (too
    /// deep for it), else made at the first level that ends past `growth_after`.
    pub growing: OnceLock<Arc<super::diagnosis::Diagnosis>>,
    /// With progress reports: when to diagnose the path to the first state of a level.
    pub growth_after: Option<std::time::Duration>,
    /// The initial state, kept to replay that path from (only with `growth_after`).
    growth_initial: Option<State>,
    /// Stored states whose error an observer absorbed (`Observer::absorbs`): never
    /// expanded, also when reached again; `any_dead_end` spares the lock until one is.
    dead_ends: Mutex<HashSet<StateId>>,
    any_dead_end: AtomicBool,
    /// The stored transitions, ends and level order, for the check that every state
    /// can reach the program's end (`liveness`); None when it does not apply. Workers
    /// record into their `LevelOut`, merged between levels.
    graph: Option<Mutex<Graph>>,
}

/// One worker's generator (`expand`) and scratch space.
struct Worker<'a, 'p> {
    gen: Expander<'a, 'p>,
    ticks: u32,
    /// Reports the races found from rebuilt states (`held`).
    replayer: Replayer,
}

impl<'a, 'p> Worker<'a, 'p> {
    fn new(machine: &'a Machine<'p>, observers: &'a [&'a dyn Observer]) -> Self {
        Worker {
            gen: Expander::new(machine, observers),
            ticks: 0,
            replayer: Replayer::default(),
        }
    }
}

/// The state being expanded: where it stands in the level, and what its threads did
/// so far.
struct At {
    id: StateId,
    index: usize,
    weight: u64,
    /// Variants run so far: a successor's key is the state's index, then this.
    ordinal: u32,
    any_enabled: bool,
}

impl At {
    fn new(index: usize, open: &Open) -> At {
        At {
            id: open.id,
            index,
            weight: open.weight,
            ordinal: 0,
            any_enabled: false,
        }
    }

    /// The key of the next variant run.
    fn next_key(&mut self) -> u64 {
        let key = (self.index as u64) << 32 | self.ordinal as u64;
        self.ordinal = self.ordinal.saturating_add(1);
        key
    }
}

/// What becomes of a variant that made progress.
#[derive(Clone, Copy)]
enum Use {
    /// Its successor is stored, with an empty sleep set.
    Store,
    /// Its successor waits in `pending` until every thread's footprint is known.
    Hold,
    /// Its thread sleeps: what it reaches is reached through another order, and the
    /// observers only see the transition.
    Observe,
}

/// A successor waiting for its sleep set: its (key, weight), move and state.
type Pending = ((u64, u64), Move, State);

/// A successor first seen in the current level.
struct Candidate {
    id: StateId,
    key: u64,
    /// Stores left delayed on the path through `parent` (see the module documentation).
    weight: u64,
    parent: StateId,
    mv: Move,
    /// The state itself (or its id's companion data), kept by whoever inserted it first.
    state: Option<Held>,
    /// The sleep set this discoverer gives it (all discoverers' sets are intersected).
    sleep: Sleep,
}

/// A state of an earlier level reached again with a sleep set that lacks threads it
/// was expanded without (see `sleep::revisit`).
struct Revisit {
    id: StateId,
    key: u64,
    weight: u64,
    sleep: Sleep,
    state: Held,
}

/// An error and where: `rank` orders errors (shorter paths first, then by weight, then
/// by key).
struct ErrorAt {
    rank: (u8, u64, u64),
    found: Found,
    parent: StateId,
    /// The failing move; None when the error is a property of `parent` itself.
    mv: Option<Move>,
}

/// What one worker produced for one level.
#[derive(Default)]
struct LevelOut {
    candidates: Vec<Candidate>,
    revisits: Vec<Revisit>,
    error: Option<ErrorAt>,
    limit: Option<String>,
    graph: Graph,
}

impl LevelOut {
    fn error(&mut self, e: ErrorAt) {
        if self.error.as_ref().is_none_or(|o| e.rank < o.rank) {
            self.error = Some(e);
        }
    }
}

impl<'a, 'p> Search<'a, 'p> {
    pub fn new(
        machine: &'a Machine<'p>,
        observers: &'a [&'a dyn Observer],
        include_output: bool,
        jobs: usize,
        start: Instant,
        por: bool,
    ) -> Self {
        let (persistent, por) = expand::reduction(machine, por);
        Search {
            persistent,
            por,
            sleeps: RwLock::new(HashMap::new()),
            recording: AtomicBool::new(por),
            payoff_run: AtomicU64::new(0),
            payoff_slept: AtomicU64::new(0),
            machine,
            observers,
            include_output,
            jobs: jobs.max(1),
            store: StateStore::new().with_symmetry(machine.opts.symmetry),
            parents: Mutex::new(Parents::default()),
            stats: Stats::default(),
            start,
            transitions: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            frontier: Mutex::new(None),
            keeper: None,
            worker_start: None,
            growing: OnceLock::new(),
            growth_after: None,
            growth_initial: None,
            dead_ends: Mutex::new(HashSet::new()),
            any_dead_end: AtomicBool::new(false),
            graph: liveness::applies(machine).then(|| Mutex::new(Graph::default())),
        }
    }

    fn records(&self) -> bool {
        self.graph.is_some()
    }

    /// Every state can reach the program's end (`liveness`), or the hang.
    fn liveness(&self, root: StateId) -> Option<Stop> {
        let graph = std::mem::take(
            &mut *self
                .graph
                .as_ref()?
                .lock()
                .unwrap_or_else(|e| e.into_inner()),
        );
        let parents = self.parents_lock();
        let sleeps = self.sleeps.read().unwrap_or_else(|e| e.into_inner());
        let cx = liveness::Context {
            machine: self.machine,
            store: &self.store,
            keeper: self.keeper(),
            include_output: self.include_output,
            root,
            asleep: self.por.then_some(&*sleeps),
            parents: Some(&parents),
        };
        liveness::stop(cx, graph, self.observers)
    }

    fn is_dead_end(&self, id: StateId) -> bool {
        self.any_dead_end.load(Ordering::Acquire)
            && self
                .dead_ends
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .contains(&id)
    }

    /// Explore everything reachable from `initial`; None when nothing stopped it.
    pub fn run(&mut self, initial: State) -> Option<Stop> {
        if self.growth_after.is_some() {
            self.growth_initial = Some(initial.clone());
        }
        let mut w0 = Worker::new(self.machine, self.observers);
        let root = self.store.insert_state(
            &mut w0.gen.canon,
            &mut w0.gen.scratch,
            self.machine.program,
            &initial,
            self.include_output,
        );
        self.parents_lock().root(root.id);
        self.keeper = Some(
            Keeper::new(
                self.machine,
                &self.store,
                &w0.gen.canon,
                &mut w0.gen.scratch,
                root.id,
                &initial,
            )
            .replaying_race_reports(),
        );
        if let Some(found) = w0.gen.judge_initial(&initial) {
            self.finish_stats();
            return found.map(|found| Stop::Found {
                found,
                path: Vec::new(),
            });
        }
        let level = vec![Open {
            id: root.id,
            weight: 0,
            held: self.keeper().hold(initial),
            sleep: 0,
            expand: Expand::AllAwake,
        }];
        if let Some(g) = &self.graph {
            g.lock().unwrap_or_else(|e| e.into_inner()).visit(root.id);
        }
        let stop = if self.jobs == 1 {
            self.run_levels(level, |s, level| vec![s.expand_all(&mut w0, level)])
        } else {
            self.run_parallel(level)
        };
        let stop = stop.or_else(|| self.liveness(root.id));
        self.finish_stats();
        stop
    }

    /// Workers 1.. live for the whole search (their per-thread caches stay warm); the
    /// calling thread is worker 0 and merges each level.
    fn run_parallel(&mut self, level: Level) -> Option<Stop> {
        let jobs = self.jobs;
        let shared: RwLock<Level> = RwLock::new(Vec::new());
        let next = AtomicUsize::new(0);
        let done = AtomicBool::new(false);
        let outs: Mutex<Vec<LevelOut>> = Mutex::new(Vec::new());
        let start_level = Barrier::new(jobs);
        let end_level = Barrier::new(jobs);
        let this: &Search<'_, '_> = self;
        let work = |w: &mut Worker| {
            let mut out = LevelOut::default();
            let level = shared.read().unwrap_or_else(|e| e.into_inner());
            loop {
                let i0 = next.fetch_add(BATCH, Ordering::Relaxed);
                if i0 >= level.len() || this.stop.load(Ordering::Relaxed) {
                    break;
                }
                for (i, open) in level.iter().enumerate().skip(i0).take(BATCH) {
                    this.expand(w, i, open, &mut out);
                }
            }
            drop(level);
            outs.lock().unwrap_or_else(|e| e.into_inner()).push(out);
        };
        let mut result = None;
        let mut levels = 0;
        // A panic in a worker must not leave the others waiting at a barrier forever:
        // it is caught, the level ends, and it is resumed once every worker has left.
        let panicked: Mutex<Option<Box<dyn std::any::Any + Send>>> = Mutex::new(None);
        let guarded = |w: &mut Worker| {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(w)));
            if let Err(p) = r {
                this.stop.store(true, Ordering::Relaxed);
                *panicked.lock().unwrap_or_else(|e| e.into_inner()) = Some(p);
            }
        };
        std::thread::scope(|s| {
            for _ in 1..jobs {
                s.spawn(|| {
                    let _started = this.worker_start.as_ref().map(|hook| hook());
                    let mut w = Worker::new(this.machine, this.observers);
                    loop {
                        start_level.wait();
                        if done.load(Ordering::Acquire) {
                            break;
                        }
                        guarded(&mut w);
                        end_level.wait();
                    }
                });
            }
            let mut w0 = Worker::new(this.machine, this.observers);
            let mut level = level;
            loop {
                levels += 1;
                this.begin_level(&level);
                if level.len() < PARALLEL_MIN {
                    // Waking the others costs more than a small level.
                    let inline = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        this.expand_all(&mut w0, &level)
                    }));
                    match inline {
                        Ok(out) => outs.lock().unwrap_or_else(|e| e.into_inner()).push(out),
                        Err(p) => {
                            *panicked.lock().unwrap_or_else(|e| e.into_inner()) = Some(p);
                            break;
                        }
                    }
                } else {
                    *shared.write().unwrap_or_else(|e| e.into_inner()) = level;
                    next.store(0, Ordering::Relaxed);
                    start_level.wait();
                    guarded(&mut w0);
                    end_level.wait();
                    if panicked.lock().is_ok_and(|p| p.is_some()) {
                        break;
                    }
                    std::mem::take(&mut *shared.write().unwrap_or_else(|e| e.into_inner()));
                }
                let level_outs =
                    std::mem::take(&mut *outs.lock().unwrap_or_else(|e| e.into_inner()));
                match this.merge(level_outs) {
                    Ok(next_level) if !next_level.is_empty() => level = next_level,
                    Ok(_) => break,
                    Err(stop) => {
                        result = Some(stop);
                        break;
                    }
                }
            }
            done.store(true, Ordering::Release);
            start_level.wait();
        });
        self.stats.max_depth = levels;
        if let Some(p) = panicked.into_inner().unwrap_or_else(|e| e.into_inner()) {
            std::panic::resume_unwind(p);
        }
        result
    }

    /// The sequential driver: `expand_level` produces the outputs of one level.
    fn run_levels(
        &mut self,
        mut level: Level,
        mut expand_level: impl FnMut(&Self, &Level) -> Vec<LevelOut>,
    ) -> Option<Stop> {
        loop {
            self.stats.max_depth += 1;
            self.begin_level(&level);
            let outs = expand_level(self, &level);
            drop(level);
            match self.merge(outs) {
                Ok(next) if !next.is_empty() => level = next,
                Ok(_) => return None,
                Err(stop) => return Some(stop),
            }
        }
    }

    /// Expand a whole level on one worker.
    fn expand_all(&self, w: &mut Worker, level: &Level) -> LevelOut {
        let mut out = LevelOut::default();
        for (i, open) in level.iter().enumerate() {
            self.expand(w, i, open, &mut out);
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
        }
        out
    }

    fn begin_level(&self, level: &Level) {
        *self.frontier.lock().unwrap_or_else(|e| e.into_inner()) = level.last().map(|l| l.id);
        self.store.begin_level();
    }

    /// After a level: the next level, or why the search stops.
    fn merge(&self, mut outs: Vec<LevelOut>) -> Result<Level, Stop> {
        let revisits: Vec<Revisit> = outs
            .iter_mut()
            .flat_map(|o| std::mem::take(&mut o.revisits))
            .collect();
        if let Some(g) = &self.graph {
            let mut g = g.lock().unwrap_or_else(|e| e.into_inner());
            for o in &mut outs {
                g.append(&mut o.graph);
            }
        }
        let winners = self.sort_out(outs)?;
        let mut sleeps = self.sleeps.write().unwrap_or_else(|e| e.into_inner());
        if let Some(g) = &self.graph {
            let mut g = g.lock().unwrap_or_else(|e| e.into_inner());
            winners.iter().for_each(|c| g.visit(c.id));
        }
        let mut level = finish_level(&mut self.parents_lock(), winners, &mut sleeps);
        level.extend(revisit_level(revisits, &mut sleeps));
        self.diagnose_growth(&level);
        let payoff = Payoff {
            run: self.payoff_run.load(Ordering::Relaxed),
            slept: self.payoff_slept.load(Ordering::Relaxed),
        };
        if !payoff.pays() {
            self.recording.store(false, Ordering::Relaxed);
        }
        Ok(level)
    }

    /// Once the search has run `growth_after`, between levels: which variables keep
    /// taking new values along the path to the first state of the next level.
    fn diagnose_growth(&self, level: &Level) {
        let (Some(after), Some(initial), Some(first)) =
            (self.growth_after, &self.growth_initial, level.first())
        else {
            return;
        };
        if self.growing.get().is_some() || self.start.elapsed() < after {
            return;
        }
        let path = self.parents_lock().path_to(first.id);
        let diagnosis = super::diagnosis::diagnose_sample(self.machine, initial.clone(), path);
        let _ = self.growing.set(Arc::new(diagnosis));
    }

    /// Only the merging thread touches the parents, between levels.
    fn parents_lock(&self) -> std::sync::MutexGuard<'_, Parents> {
        self.parents.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The end of a level: a limit or the smallest error stops the search; otherwise the
    /// candidates, one per new state (the smallest key), in key order.
    fn sort_out(&self, outs: Vec<LevelOut>) -> Result<Vec<Candidate>, Stop> {
        let mut error: Option<ErrorAt> = None;
        let mut candidates: Vec<Candidate> = Vec::new();
        for out in outs {
            if let Some(reason) = out.limit {
                let frontier = *self.frontier.lock().unwrap_or_else(|e| e.into_inner());
                let path = frontier
                    .map(|id| self.parents_lock().path_to(id))
                    .unwrap_or_default();
                return Err(Stop::Limit { reason, path });
            }
            if let Some(e) = out.error {
                if error.as_ref().is_none_or(|o| e.rank < o.rank) {
                    error = Some(e);
                }
            }
            if candidates.is_empty() {
                candidates = out.candidates;
            } else {
                candidates.extend(out.candidates);
            }
        }
        if let Some(e) = error {
            let mut path = self.parents_lock().path_to(e.parent);
            path.extend(e.mv);
            return Err(Stop::Found {
                found: e.found,
                path,
            });
        }
        // In place: a level's candidates are the search's largest transient data.
        candidates.sort_unstable_by_key(|c| (c.id, c.weight, c.key));
        candidates.dedup_by(|later, winner| {
            let same = later.id == winner.id;
            if same {
                winner.sleep &= later.sleep;
                if winner.state.is_none() {
                    winner.state = later.state.take();
                }
            }
            same
        });
        candidates.sort_unstable_by_key(|c| c.key);
        Ok(candidates)
    }

    fn finish_stats(&mut self) {
        self.stats.transitions = self.transitions.load(Ordering::Relaxed);
        let parent_bytes = self.parents_lock().bytes();
        expand::finish_stats(
            &mut self.stats,
            self.machine,
            &self.store,
            self.start,
            parent_bytes,
        );
    }

    fn keeper(&self) -> &Keeper {
        self.keeper
            .as_ref()
            .expect("set when the initial state is stored")
    }

    /// Generate the successors of `open`, the `index`-th state of the level.
    fn expand(&self, w: &mut Worker, index: usize, open: &Open, out: &mut LevelOut) {
        let rebuilt = self.keeper().rebuild(
            self.machine,
            &self.store,
            &w.gen.canon,
            &mut w.gen.scratch,
            open.id,
            &open.held,
        );
        // The successors are canonicalised from this state's canonical form: a
        // rebuilt state's chunk ids are those it was rebuilt from.
        let mut base = match &rebuilt {
            Ok(std::borrow::Cow::Owned(st)) => {
                w.gen
                    .canon
                    .base_by_traversal(self.machine.program, st, w.gen.scratch.decoded_ids())
            }
            _ => None,
        };
        w.gen.canon.swap_base(&mut base);
        let st: &State = match &rebuilt {
            Ok(st) => st,
            Err(failure) => {
                self.stop.store(true, Ordering::Relaxed);
                out.error(ErrorAt {
                    rank: (0, open.weight, (index as u64) << 32),
                    found: Found::new(failure.clone(), None),
                    parent: open.id,
                    mv: None,
                });
                return;
            }
        };
        if st.is_finished() {
            if self.records() {
                out.graph.end(open.id);
            }
            return;
        }
        let mut at = At::new(index, open);
        if let Some(futures) = &self.persistent {
            if self.expand_persistent(w, futures, &mut at, st, out) {
                self.judge_expanded(w, &at, st, out);
            }
            return;
        }
        if !self.expand_threads(w, &mut at, open, st, out) {
            return;
        }
        if open.expand != Expand::AllAwake {
            // A revisit: the state itself was judged when first expanded.
            return;
        }
        if !at.any_enabled && self.records() {
            out.graph.end(at.id);
        }
        self.judge_expanded(w, &at, st, out);
    }

    /// Every variant of every running thread of `st`, the state `open` at `at`, with
    /// sleep sets when they are on. While the reduction pays (`sleep::Payoff`): every
    /// thread's footprint here, and the successors of the threads expanded stored once
    /// all footprints are known. Afterwards successors get empty sleep sets. False when
    /// the search stops.
    fn expand_threads(
        &self,
        w: &mut Worker,
        at: &mut At,
        open: &Open,
        st: &State,
        out: &mut LevelOut,
    ) -> bool {
        let por = self.por;
        let record = por && self.recording.load(Ordering::Relaxed);
        let mut payoff = Payoff::default();
        let mut footprints: Vec<Option<Footprint>> = Vec::new();
        let mut pending: Vec<Pending> = Vec::new();
        if record {
            footprints.resize(st.threads.len(), None);
        }
        for tid in 0..st.threads.len() as ThreadId {
            if !st.thread(tid).status.is_running() {
                continue;
            }
            let expanding = !por || open.expand.includes(open.sleep, tid);
            if record && open.expand == Expand::AllAwake && sleep::contains(open.sleep, tid) {
                payoff.slept += 1;
            }
            let use_ = match (expanding, record) {
                (false, _) => Use::Observe,
                (true, true) => Use::Hold,
                (true, false) => Use::Store,
            };
            let mut touched = Footprint::default();
            let mut script = Script::new();
            loop {
                let key = at.next_key();
                let mut succ = st.clone();
                let (ran, next) =
                    w.gen
                        .variant(st, &mut succ, tid, &script, record.then_some(&mut touched));
                if record {
                    payoff.run += 1;
                }
                if crate::interp::take_unreported_race() {
                    let path = self.parents_lock().path_to(at.id);
                    w.replayer
                        .report_races(self.machine, self.keeper(), &path, &ran.mv);
                }
                if !self.take(w, at, key, ran, succ, use_, &mut pending, out) {
                    return false;
                }
                match next {
                    Some(s) => script = s,
                    None => break,
                }
            }
            if record {
                footprints[tid as usize] = Some(touched);
            }
        }
        if record {
            self.payoff_run.fetch_add(payoff.run, Ordering::Relaxed);
            self.payoff_slept.fetch_add(payoff.slept, Ordering::Relaxed);
        }
        self.store_pending(w, at.id, open, &footprints, pending, out)
    }

    /// The successors held back while footprints were recorded, each with its sleep
    /// set (`sleep::child_sleep`). False when the search stops.
    fn store_pending(
        &self,
        w: &mut Worker,
        id: StateId,
        open: &Open,
        footprints: &[Option<Footprint>],
        pending: Vec<Pending>,
        out: &mut LevelOut,
    ) -> bool {
        let mut sleep_of: Option<(ThreadId, Sleep)> = None;
        for (kw, mv, succ) in pending {
            let tid = mv.tid;
            let z = match sleep_of {
                Some((t, z)) if t == tid => z,
                _ => {
                    let z = sleep::child_sleep(open.sleep, open.expand, footprints, tid);
                    sleep_of = Some((tid, z));
                    z
                }
            };
            self.successor(w, kw, id, mv, succ, z, out);
            if out.limit.is_some() {
                return false;
            }
        }
        true
    }

    /// `expand` with persistent sets: the threads `persistent::choose` picks (all when
    /// it picks none), each with every choice variant; the threads it ran to decide
    /// keep what they reached. False when the search stops.
    fn expand_persistent(
        &self,
        w: &mut Worker,
        futures: &Futures,
        at: &mut At,
        st: &State,
        out: &mut LevelOut,
    ) -> bool {
        let (set, mut ran) = w.gen.persistent_set(futures, st, true);
        for tid in 0..st.threads.len() as ThreadId {
            if !st.thread(tid).status.is_running() || set.is_some_and(|m| m & (1 << tid) == 0) {
                continue;
            }
            let variants = match ran[tid as usize].take() {
                Some(v) => v,
                None => w.gen.variants(st, tid, None),
            };
            for v in variants {
                let key = at.next_key();
                if !self.take(w, at, key, v.ran, v.succ, Use::Store, &mut Vec::new(), out) {
                    return false;
                }
            }
        }
        true
    }

    /// One variant run from the state at `at` into `succ`, with key `key`: an error is
    /// ranked, a dead end recorded, a successor used as `use_` says. False when the
    /// search stops (a step limit, which ends it at once as inconclusive, or a limit).
    #[allow(clippy::too_many_arguments)]
    fn take(
        &self,
        w: &mut Worker,
        at: &mut At,
        key: u64,
        ran: Ran,
        succ: State,
        use_: Use,
        pending: &mut Vec<Pending>,
        out: &mut LevelOut,
    ) -> bool {
        let weight = at.weight + ran.delayed;
        let outcome = w.gen.judge(ran.result, ran.mv.tid);
        at.any_enabled |= outcome.moved();
        match outcome {
            Outcome::Error(found) => {
                let step_limit = found.failure.kind == ErrorKind::StepLimit;
                out.error(ErrorAt {
                    rank: (if step_limit { 0 } else { 2 }, weight, key),
                    found,
                    parent: at.id,
                    mv: Some(ran.mv),
                });
                if step_limit {
                    self.stop.store(true, Ordering::Relaxed);
                    return false;
                }
            }
            Outcome::Blocked => {}
            Outcome::DeadEnd => out.graph.end(at.id),
            Outcome::Progress => match use_ {
                Use::Observe => match w.gen.observe_transition(ran.mv.tid, &succ) {
                    Some(Outcome::Error(found)) => {
                        out.error(ErrorAt {
                            rank: (2, weight, key),
                            found,
                            parent: at.id,
                            mv: Some(ran.mv),
                        });
                        out.graph.end(at.id);
                    }
                    Some(_) => out.graph.end(at.id),
                    None => {}
                },
                Use::Hold => pending.push(((key, weight), ran.mv, succ)),
                Use::Store => {
                    self.successor(w, (key, weight), at.id, ran.mv, succ, 0, out);
                    if out.limit.is_some() {
                        return false;
                    }
                }
            },
        }
        true
    }

    /// The observers on the state at `at`, all of whose threads have run: a property
    /// of the state, whose path is one step shorter than the failing transitions of
    /// this level.
    fn judge_expanded(&self, w: &Worker, at: &At, st: &State, out: &mut LevelOut) {
        if let Some(found) = w.gen.judge_expanded(st, at.any_enabled) {
            out.error(ErrorAt {
                rank: (1, at.weight, (at.index as u64) << 32),
                found,
                parent: at.id,
                mv: None,
            });
        }
    }

    /// `succ`, stored in an earlier level as `id`, was reached again with `sleep`: it
    /// goes to the merge if it must be expanded again (`sleep::revisit`).
    fn revisited(
        &self,
        (key, weight): (u64, u64),
        id: StateId,
        succ: State,
        sleep: Sleep,
        out: &mut LevelOut,
    ) {
        let old = self
            .sleeps
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&id)
            .copied()
            .unwrap_or(0);
        if sleep::revisit(old, sleep).0 != 0 {
            out.revisits.push(Revisit {
                id,
                key,
                weight,
                sleep,
                state: self.keeper().hold(succ),
            });
        }
    }

    /// A transition from `parent` by `mv` reached `succ`: show it to the observers and
    /// store it.
    #[allow(clippy::too_many_arguments)]
    fn successor(
        &self,
        w: &mut Worker,
        (key, weight): (u64, u64),
        parent: StateId,
        mv: Move,
        mut succ: State,
        sleep: Sleep,
        out: &mut LevelOut,
    ) {
        self.transitions.fetch_add(1, Ordering::Relaxed);
        let at = Storage {
            store: &self.store,
            include_output: self.include_output,
            renames: self.por && self.machine.opts.symmetry,
        };
        let graph = self.records().then_some(&mut out.graph);
        let (ins, sleep, dead_end, limit) =
            match w.gen.arrive(&at, parent, mv.tid, &mut succ, sleep, graph) {
                Arrival::Observed(Outcome::Error(found)) | Arrival::Failed(found) => {
                    out.error(ErrorAt {
                        rank: (2, weight, key),
                        found,
                        parent,
                        mv: Some(mv),
                    });
                    return;
                }
                Arrival::Observed(_) => return,
                Arrival::Stored {
                    ins,
                    sleep,
                    dead_end,
                    limit,
                    ..
                } => (ins, sleep, dead_end, limit),
            };
        let keep = if ins.new {
            if dead_end {
                self.dead_ends
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(ins.id);
                self.any_dead_end.store(true, Ordering::Release);
            }
            if let Some(reason) = limit {
                self.stop.store(true, Ordering::Relaxed);
                out.limit = Some(reason);
                return;
            }
            (!dead_end).then(|| self.keeper().hold(succ))
        } else if !ins.this_level && self.por && !self.is_dead_end(ins.id) {
            w.gen.canon.to_representative(&mut succ);
            self.revisited((key, weight), ins.id, succ, sleep, out);
            None
        } else {
            None
        };
        if ins.this_level {
            out.candidates.push(Candidate {
                id: ins.id,
                key,
                weight,
                parent,
                mv,
                state: keep,
                sleep,
            });
        }
        self.tick(w, out);
    }

    /// Every 256 successors of a worker: the observers' `tick`, which may stop the
    /// search.
    fn tick(&self, w: &mut Worker, out: &mut LevelOut) {
        w.ticks += 1;
        if w.ticks < 256 {
            return;
        }
        w.ticks = 0;
        let stats = Stats {
            states: self.store.states() as u64,
            transitions: self.transitions.load(Ordering::Relaxed),
            time: self.start.elapsed(),
            growing: self
                .growing
                .get()
                .cloned()
                .filter(|_| self.start.elapsed() >= super::GROWTH_AFTER),
            ..Stats::default()
        };
        for o in self.observers {
            if let Some(reason) = o.tick(&stats) {
                self.stop.store(true, Ordering::Relaxed);
                out.limit = Some(reason);
                return;
            }
        }
    }
}

/// Record the parents and sleep sets of a level's new states and make them the next
/// level.
fn finish_level(
    parents: &mut Parents,
    winners: Vec<Candidate>,
    sleeps: &mut HashMap<StateId, Sleep>,
) -> Level {
    let mut level = Vec::with_capacity(winners.len());
    for c in winners {
        parents.set(c.id, c.parent, &c.mv);
        if c.sleep != 0 {
            sleeps.insert(c.id, c.sleep);
        }
        if let Some(held) = c.state {
            level.push(Open {
                id: c.id,
                weight: c.weight,
                held,
                sleep: c.sleep,
                expand: Expand::AllAwake,
            });
        }
    }
    level
}

/// States of earlier levels reached again in this one: each is expanded again, in the
/// next level, for the threads that all of this level's sleep sets for it lack; it
/// keeps the intersection. In key order, after the new states (deterministic).
fn revisit_level(mut revisits: Vec<Revisit>, sleeps: &mut HashMap<StateId, Sleep>) -> Level {
    revisits.sort_unstable_by_key(|r| (r.id, r.key));
    let mut merged: Vec<Revisit> = Vec::new();
    for r in revisits {
        match merged.last_mut() {
            Some(m) if m.id == r.id => {
                m.sleep &= r.sleep;
                m.weight = m.weight.min(r.weight);
            }
            _ => merged.push(r),
        }
    }
    merged.sort_unstable_by_key(|r| r.key);
    let mut level = Vec::new();
    for r in merged {
        let old = sleeps.get(&r.id).copied().unwrap_or(0);
        let (need, keep) = sleep::revisit(old, r.sleep);
        if need == 0 {
            continue;
        }
        if keep == 0 {
            sleeps.remove(&r.id);
        } else {
            sleeps.insert(r.id, keep);
        }
        level.push(Open {
            id: r.id,
            weight: r.weight,
            held: r.state,
            sleep: keep,
            expand: Expand::Only(need),
        });
    }
    level
}
