//! Source-set dynamic partial-order reduction in the depth-first search, with the state
//! cache (experimental, `MachineOptions::dpor`, off by default). Races are found
//! between the steps on the current path from their real footprints (`footprint`), as
//! in Abdulla, Aronis, Jonsson, Sagonas, "Source Sets: A Foundation for Optimal Dynamic
//! Partial Order Reduction" (JACM 2017); a state already stored is not expanded again,
//! and the races re-exploring it would have found are replayed from a summary of what
//! is reachable from it, as in Yang, Chen, Gopalakrishnan, Kirby, "Efficient Stateful
//! Dynamic Partial Order Reduction" (SPIN 2008).
//!
//! **Steps.** A step is one thread's transition from a state with all its choice
//! variants, and its footprint is their union (`DepthFirst::run_all`): a thread's
//! variants are always explored together, so they act as one step whose footprint
//! over-approximates each variant's. Each step on the path carries a vector clock of
//! the happens-before order over the path: its thread's previous step and every
//! earlier dependent step. Two steps of different threads *race* when they are
//! dependent and the first happens before the second only through that dependence.
//!
//! **Backtrack points.** For a race between step `e_j` (from node j) and a new step
//! `e`, let `v` be the steps after `e_j` that do not happen after it, followed by `e`.
//! If no thread of node j's backtrack set starts `v` (an *initial*: its first step in
//! `v` happens after no earlier step of `v`), one initial is added (`e`'s thread when
//! it is one). A thread added that cannot move at node j makes node j expand every
//! thread that can. A thread blocked at a node runs once there for its footprint (what
//! it read to decide it cannot move) and its races are handled as a step's would be:
//! that is how an order in which it would not have blocked is found. A thread whose
//! every move is pruned (`__VERIFIER_assume`) or ends at an absorbed error leads to no
//! run, and counts as blocked. A step that ends the process (an exit, `main`
//! returning) makes its node expand every thread that can move: the others' next
//! steps never run after it, so their races with it never show on the path.
//!
//! **Thread lifecycle.** Creation, joins and ends name what they touch
//! (`Machine::run_transition_observed`, with `MachineOptions::dpor` on; without it,
//! those steps touch everything: sleep sets stored as many states with the names on
//! the benchmark programs and paid for recording them, bench/PERFORMANCE.md. The names
//! are sound for sleep and persistent sets too, which a run with the option on may
//! still use: `-j`, the hang check's second search). Each over-approximates what the
//! step reads and writes:
//! - a creation writes the new thread's end object (whether it exists and has ended:
//!   what a join, detach or cancel of it reads), its own state and its extension data,
//!   besides the handle slot it stores to (a memory write, recorded as such). The new
//!   thread's steps come after the creation in program order: a step's clock starts
//!   from its thread's previous step or, for its first, from the step that created it
//!   (`Event::created`), so they never race with it, as the new thread does not exist
//!   before it (happens-before on spawn). No other thread's step can observe the
//!   creation but through those objects: thread ids are never reused, and the thread
//!   count is read by no step of another thread (where it decides how a thread's steps
//!   are cut, below, that thread's own state is written);
//! - a join reads the joined thread's end object, and, completing, writes it (the
//!   thread is now joined: a second join or a detach reads that) and its own state. A
//!   join that completes comes after the joined thread's end, its last step (its clock
//!   takes that step's): it cannot be reversed with it (it blocks before), so that is
//!   no race; a join that blocks is raced as a blocked step;
//! - an end writes the thread's own end object; under TSO the thread-exit hook drains
//!   the thread's own buffer, and the runtime reports what the drain touched;
//! - every step of thread `t` reads `t`'s own state (`footprint::thread_state_object`):
//!   a step of another thread that changes `t` (joins or detaches it, asks it to
//!   cancel, ends the process while `t` can move, or leaves `t` the only thread that
//!   can move) writes it. The last case is the end of the last but one thread: from
//!   then on the survivor's transitions stop only at choices, and the ending step runs
//!   it on (`settle_others`), with the survivor's accesses reported as the step's.
//!   Such a *folded* step holds two threads' code: its dependence on a step of the
//!   survivor's orders the survivor's part, not the ending thread's, after it; so a
//!   folded step's clock takes no dependent step's nor the ends of the threads the
//!   survivor joined in it, and every dependent step not in program order before it
//!   is a race (`new_step`, `folded`);
//! - the process's end (an exit, `main` returning) writes the end object and own state
//!   of every other thread that can still move (they stop); threads already ended are
//!   past any change. Its node still expands every thread that can move (below).
//!
//! Atomic sections, pthread keys and atexit registrations still touch everything.
//!
//! **Sleep sets** are not used with this reduction: the algorithm without them
//! explores a superset of what it explores with them (they only prune), so every
//! source set it computes is still one. **Thread symmetry** is off too: a state's
//! representative may rename threads, and the clocks and backtrack sets of the path
//! name threads as the states below it do.
//!
//! **Object numbering.** Footprints name objects by their ids in the state a step ran
//! from. Along one path ids are stable (a successor is its parent's copy, garbage
//! collection only drops objects), except where a state dropped from the path is
//! rebuilt from the store, which numbers objects canonically: each such rebuild starts
//! a new *epoch*. Steps of different epochs, and summaries, are compared coarsened
//! (`Footprint::coarsened_in`): globals, function objects and the pseudo-objects keep
//! their names, a live stack object is named by the thread whose frames hold it (a
//! property of the state, kept while the object lives), a dead one touches
//! everything, every other object (heap, thread-local, engine-internal) becomes one
//! object. An id reused for a new object only adds dependence.
//!
//! **Stored states (Yang et al.).** Races between two steps after a stored state `u` do
//! not depend on how `u` was reached: the first exploration below `u` handled them.
//! The races re-exploring `u` would add are those between a step on the current path
//! (with the step into `u`) and a step reachable from `u`. Each stored state keeps a
//! *summary*: per thread, the union of the coarsened footprints of the steps of that
//! thread in the explored graph reachable from it, and apart, those of its *first*
//! steps (below). At a revisit, every step `e_j` of the path of another thread `q`
//! with a dependent summary entry, unless `e_j` happens before `q`'s last step on the
//! path (then it happens before all of `q`'s later steps), is taken as a race with a
//! step of `q` after the path. Steps before the path's last step touching everything
//! race with none (they happen before it, and it before every step after the path);
//! that step itself does race. The sequence `v` is then the path's steps after `e_j`
//! not happening after it, and some unknown steps after `u`. When the path's part is
//! not empty its initials are initials of `v`; when it is empty, see "First steps". A
//! step that a later step of its own thread writes over entirely
//! (`Footprint::writes_all_of`) races with no step after the path: any such step it
//! conflicts with conflicts with the later one, which happens after it. Both only add
//! backtrack points over what stateless re-exploration would add (summaries
//! over-approximate, the happens-before order used is a subset), which costs time,
//! never soundness.
//!
//! **First steps.** When every step of the path after `e_j` happens after it, `v`
//! starts after the path, and its first step `s` (an initial: nothing in `v` precedes
//! it) is the first step after `u`, in the explored run that holds the racing step,
//! that does not happen after `e_j`. Every step before `s` in that run happens after
//! `e_j`, and `s` depends on none of them and on none of the path's steps after `e_j`,
//! unless `s` is the racing step itself (which depends on `e_j` only). `s`'s thread
//! is not `e_j`'s and has no step on the path after `e_j` (program order would order
//! `s` after it), and `s` is that thread's first step after `u`. So, by the first step
//! `g` from `u` of that run (the stored state keeps the steps explored from it, with
//! the states they reach): if `g`'s thread is not excluded so, it is `s`'s thread
//! unless `g` happens after `e_j`; when `g` may happen after `e_j` (its thread is
//! excluded, or it depends on `e_j` or a later path step), `s` is the first step
//! after `g`'s successor of a thread other than `g`'s whose footprint is independent
//! of the path's steps after `e_j` and of `g`. A summary keeps, per thread, the
//! coarsened footprints of its first steps (its steps from states reached by steps of
//! other threads) as a list, not a union: a thread qualifies when *some* first step
//! is independent, which a union cannot tell (past `MAX_FIRST_STEPS` every thread
//! qualifies). Every thread that can start some `v` is added (each race's `v` has its
//! `s` among them); none when none can, as no race is then possible. Within a
//! strongly connected component first steps are united over the component (a first
//! step of one state counts for all: only more candidates). A state whose summary is
//! partial (on a cycle, below) adds, for this case, every thread that can move at
//! node j, has a step after the stored state, and is not excluded as above.
//!
//! Summaries are computed per strongly connected component of the explored graph
//! (Tarjan's algorithm on the depth-first search): a state's summary is final when its
//! component is closed, and is then the union over the component and the summaries of
//! the components it reaches.
//!
//! **Cycles.** A revisit of a state whose component is still open (on Tarjan's stack:
//! it lies on a cycle through the current path) cannot use a final summary: the
//! component's states still on the path have backtrack points to explore, whose steps
//! re-exploring the state would meet. The rule: every node of the path from the
//! component's root to the top is expanded fully (every thread that can move). The
//! current node is marked at the revisit; the mark passes to the parent when a node
//! leaves the path while not the root of its component (its parent is then in the same
//! component), and stops at the root. Why it is enough: every state of the cycle on the
//! path then explores every successor, so no backtrack point is missing there; the
//! steps after the revisited state that are still to be explored are explored from the
//! component's states on the path, with the path below the root unchanged, and with
//! fewer steps in between than a stateless re-exploration would have (happens-before
//! over a subsequence is a subset), so their races with the path below the root are
//! found when they run; the partial summary is replayed as well.
//!
//! **Properties.** Every state where the search stops is a state the full search
//! reaches, so errors found are real. The reduction explores, from every explored
//! state, a representative of every maximal run (Mazurkiewicz trace), so terminal
//! states, outcomes, deadlocks (a blocked set of threads stays blocked and so is in
//! every equivalent run's final state), assertion, memory and definedness errors
//! (properties of a thread's own step and what it read), and races (a race is a
//! property of a trace) are all found. Every thread is run once at every explored
//! state (not storing what it reaches unless it is expanded), which keeps a
//! thread's errors and the transition observers as exact as with sleep sets. What is
//! not kept:
//! - the hang check's graph lacks the moves of threads not expanded: the check reruns
//!   them at a candidate, as it does for sleeping threads (`liveness`); when such a
//!   move leads to a state never stored it cannot decide, and the search runs again
//!   without the reduction (`explore::search_with`), so the verdict is the full one;
//! - the race screen and a caller that sees every state (robustness) need every state:
//!   `check` tracks races without the screen under the reduction, and turns the
//!   reduction off for a state observer (`cargo tso check -v` says so);
//! - the breadth-first search (`-j N`, N > 1) does not use it: `cargo tso` turns it
//!   off there, and says so in `-v`;
//! - a counterexample is searched again breadth-first without it (`explore`).

use super::footprint::Footprint;
use crate::state::ThreadId;

/// A set of threads: bit t is thread t (threads from 64 on are not supported).
pub(crate) type Threads = u64;

pub(crate) const MAX_THREADS: usize = 64;

#[inline]
pub(crate) fn bit(t: ThreadId) -> Threads {
    if (t as usize) < MAX_THREADS {
        1 << t
    } else {
        0
    }
}

/// One step on the path: thread `tid`'s transition from node j.
#[derive(Clone, Debug)]
pub(crate) struct Event {
    pub(crate) tid: ThreadId,
    fp: Footprint,
    coarse: Footprint,
    /// The object numbering the footprint names objects by.
    pub(crate) epoch: u32,
    /// `clock[u]`: one more than the position of the latest step of thread u that
    /// happens before this one (this one included); 0 or absent: none.
    clock: Vec<u32>,
    /// The threads this step created: their steps happen after it.
    created: Threads,
}

impl Event {
    fn depends(&self, fp: &Footprint, coarse: &Footprint, epoch: u32) -> bool {
        if self.epoch == epoch {
            !self.fp.independent(fp)
        } else {
            !self.coarse.independent(coarse)
        }
    }

    /// Does the step at `pos`, of thread `u`, happen before this one?
    #[inline]
    fn covers(&self, u: ThreadId, pos: usize) -> bool {
        self.clock
            .get(u as usize)
            .is_some_and(|&c| c as usize > pos)
    }

    pub(crate) fn coarse(&self) -> &Footprint {
        &self.coarse
    }
}

/// The step after which thread `t`'s next step comes in program order: its last step
/// on the path, or else the step that created it (None: `t` was there from the start).
fn program_order_before<'e>(events: &[&'e Event], t: ThreadId) -> Option<&'e Event> {
    events
        .iter()
        .rev()
        .find(|e| e.tid == t || e.created & bit(t) != 0)
        .copied()
}

/// Per thread, the coarsened footprints of the steps reachable from a stored state, and
/// those of the thread's *first* steps after it (`dpor`, "First steps").
#[derive(Clone, Debug, Default)]
pub(crate) struct Summary {
    per_thread: Vec<Footprint>,
    first: Vec<FirstSteps>,
}

/// First steps kept apart per thread before a summary gives up naming them.
const MAX_FIRST_STEPS: usize = 8;

/// The coarsened footprints of one thread's first steps after a stored state: each
/// step of that thread in the explored graph from a state reachable from the stored
/// one by steps of other threads. Kept apart, not united: a thread is a candidate
/// initial when *some* first step is independent of the path's steps, which a union
/// cannot tell. `many`: more than `MAX_FIRST_STEPS` distinct ones, any footprint.
#[derive(Clone, Debug, Default)]
struct FirstSteps {
    steps: Vec<Footprint>,
    many: bool,
}

impl FirstSteps {
    fn insert(&mut self, fp: &Footprint) {
        if self.many || self.steps.contains(fp) {
            return;
        }
        if self.steps.len() >= MAX_FIRST_STEPS {
            self.many = true;
            self.steps = Vec::new();
        } else {
            self.steps.push(fp.clone());
        }
    }

    fn union(&mut self, other: &FirstSteps) {
        if other.many {
            self.many = true;
            self.steps = Vec::new();
        }
        for f in &other.steps {
            self.insert(f);
        }
    }

    /// Could one of these steps be independent of every footprint of `after`?
    fn may_commute_with(&self, after: &[&Footprint]) -> bool {
        self.many
            || self
                .steps
                .iter()
                .any(|f| after.iter().all(|a| f.independent(a)))
    }
}

impl Summary {
    /// A step of thread `t` from the state itself: reachable, and a first step.
    pub(crate) fn add(&mut self, t: ThreadId, coarse: &Footprint) {
        self.add_reach(t, coarse);
        let t = t as usize;
        if self.first.len() <= t {
            self.first.resize(t + 1, FirstSteps::default());
        }
        self.first[t].insert(coarse);
    }

    fn add_reach(&mut self, t: ThreadId, coarse: &Footprint) {
        let t = t as usize;
        if self.per_thread.len() <= t {
            self.per_thread.resize(t + 1, Footprint::default());
        }
        self.per_thread[t].union(coarse);
    }

    /// Everything `other` holds: the summaries of states of one strongly connected
    /// component, each reachable from the others (a first step of one is counted as a
    /// first step of all, which only adds candidates).
    pub(crate) fn union(&mut self, other: &Summary) {
        self.absorb(other, None);
    }

    /// What a state reaching `other`'s state by a step of `via` reaches: all its steps,
    /// and the first steps of every thread but `via` (whose step came first).
    pub(crate) fn absorb(&mut self, other: &Summary, via: Option<ThreadId>) {
        for (t, f) in other.per_thread.iter().enumerate() {
            if f != &Footprint::EMPTY {
                self.add_reach(t as ThreadId, f);
            }
        }
        if self.first.len() < other.first.len() {
            self.first.resize(other.first.len(), FirstSteps::default());
        }
        for (t, f) in other.first.iter().enumerate() {
            if via != Some(t as ThreadId) {
                self.first[t].union(f);
            }
        }
    }

    /// Could a first step of `t` after the state commute with every footprint of
    /// `after`?
    fn first_may_commute(&self, t: ThreadId, after: &[&Footprint]) -> bool {
        self.first
            .get(t as usize)
            .is_some_and(|f| f.may_commute_with(after))
    }
}

/// A step explored from a stored state: its thread, its coarsened footprint, and the
/// states it reached (`dpor`, "First steps").
#[derive(Clone, Debug)]
pub(crate) struct Edge {
    pub(crate) tid: ThreadId,
    pub(crate) coarse: Footprint,
    pub(crate) to: Vec<u32>,
}

/// What a revisit knows of a stored state whose component is closed: the steps
/// explored from it, and the summaries of the states they reached.
pub(crate) struct Explored<'a> {
    pub(crate) edges: &'a [Edge],
    pub(crate) summary_of: &'a dyn Fn(u32) -> Option<&'a Summary>,
}

/// A backtrack point to add at node `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Add {
    /// Add `thread` (an initial; none of the initials found is in the set yet).
    One { at: usize, thread: ThreadId },
    /// Add every thread of `threads` that can move there.
    All { at: usize, threads: Threads },
}

fn join(acc: &mut Vec<u32>, other: &[u32]) {
    if acc.len() < other.len() {
        acc.resize(other.len(), 0);
    }
    for (a, &o) in acc.iter_mut().zip(other) {
        *a = (*a).max(o);
    }
}

/// A new step of `tid` with footprint `fp` from the top of a path whose steps are
/// `events` (step j from node j; the new one from node `events.len()`), where node j's
/// backtrack set is `backtrack[j]`, creating the threads `created` and joining the
/// threads `joined`: the step with its clock, and the backtrack points its races add.
/// `folded`: the step also ran another thread on (the end that left it running alone,
/// `Machine::run_transition_observed`): two threads' code in one step, so no
/// dependence orders it after a step it depends on (`dpor`, "Thread lifecycle").
#[allow(clippy::too_many_arguments)]
pub(crate) fn new_step(
    events: &[&Event],
    backtrack: &[Threads],
    tid: ThreadId,
    fp: Footprint,
    coarse: Footprint,
    epoch: u32,
    created: Threads,
    joined: Threads,
    folded: bool,
) -> (Event, Vec<Add>) {
    let n = events.len();
    // Program order, a thread's creation included: a thread's first step cannot come
    // before the step that created it (it does not exist there), so that is no race.
    let mut acc = program_order_before(events, tid)
        .map(|e| e.clock.clone())
        .unwrap_or_default();
    // A join that completes comes after the joined thread's end, its last step on the
    // path: it cannot come before it (it blocks there), so that is no race either. Not
    // in a folded step: its joins are the survivor's part, not the ending thread's.
    let joined = if folded { 0 } else { joined };
    for u in (0..MAX_THREADS as ThreadId).filter(|&u| joined & bit(u) != 0) {
        if let Some(end) = events.iter().rev().find(|e| e.tid == u) {
            join(&mut acc, &end.clock);
        }
    }
    let mut races = Vec::new();
    for j in (0..n).rev() {
        let e = events[j];
        if e.tid == tid || !e.depends(&fp, &coarse, epoch) {
            continue;
        }
        if acc.get(e.tid as usize).is_none_or(|&c| c as usize <= j) {
            races.push(j);
        }
        if !folded {
            join(&mut acc, &e.clock);
        }
    }
    if acc.len() <= tid as usize {
        acc.resize(tid as usize + 1, 0);
    }
    acc[tid as usize] = n as u32 + 1;
    let ev = Event {
        tid,
        fp,
        coarse,
        epoch,
        clock: acc,
        created,
    };
    let adds = races
        .into_iter()
        .filter_map(|j| initials_after(events, j, Ok(&ev), backtrack[j]))
        .collect();
    (ev, adds)
}

/// At a revisit of a stored state with summary `summary`, reached by the path whose
/// steps are `events` (the last one into the state): the backtrack points the races
/// between the path and the steps after the state add. `closed`: the summary is final
/// (its first steps are all known), with the steps explored from the state; None: the
/// partial summary of a state on a cycle.
pub(crate) fn replay(
    events: &[&Event],
    backtrack: &[Threads],
    summary: &Summary,
    closed: Option<&Explored>,
) -> Vec<Add> {
    let n = events.len();
    let mut racing = vec![false; n];
    // A step that touches everything (a thread created, for one) depends on every
    // step: the steps before it happen before every step after it, those after the
    // path too, so none of them races with one. It races itself with the steps after
    // the path that nothing else orders after it.
    let after = events
        .iter()
        .rposition(|e| e.coarse.touches_everything())
        .unwrap_or(0);
    // A step that a later step of its thread writes over entirely happens before
    // every step after the path it conflicts with, through that later step (which
    // conflicts with it too): it races with none of them.
    let mut shadowed = vec![false; n];
    let mut later: Vec<Footprint> = Vec::new();
    for j in (after..n).rev() {
        let e = events[j];
        let t = e.tid as usize;
        if later.len() <= t {
            later.resize(t + 1, Footprint::default());
        }
        shadowed[j] = later[t].writes_all_of(&e.coarse);
        later[t].union(&e.coarse);
    }
    for (q, f) in summary.per_thread.iter().enumerate() {
        if f == &Footprint::EMPTY {
            continue;
        }
        let q = q as ThreadId;
        // Every step of q after the path comes after this one in program order.
        let last_q = program_order_before(events, q);
        for (j, e) in events.iter().enumerate().skip(after) {
            if racing[j] || shadowed[j] || e.tid == q || e.coarse.independent(f) {
                continue;
            }
            if last_q.is_some_and(|l| l.covers(e.tid, j)) {
                continue;
            }
            racing[j] = true;
        }
    }
    // Threads with a step after the path: only they can start the unknown part.
    let future = summary
        .per_thread
        .iter()
        .enumerate()
        .filter(|(_, f)| *f != &Footprint::EMPTY)
        .fold(0, |set, (t, _)| set | bit(t as ThreadId));
    (0..n)
        .filter(|&j| racing[j])
        .filter_map(|j| {
            let after = After {
                future,
                first: closed.map(|c| (summary, c)),
            };
            initials_after(events, j, Err(after), backtrack[j])
        })
        .collect()
}

/// What is known of the steps after the path, for a race with one of them.
#[derive(Clone, Copy)]
struct After<'s, 'e> {
    /// The threads with a step after the path.
    future: Threads,
    /// Their first steps after the path, and the steps explored from the state the path
    /// reached, when known (`Summary::first`).
    first: Option<(&'s Summary, &'s Explored<'e>)>,
}

/// The backtrack point for a race of step j with `last` (Err: a step after the path,
/// not known), unless an initial of the steps after j not happening after it (then
/// `last`) is in `have` already.
fn initials_after(
    events: &[&Event],
    j: usize,
    last: Result<&Event, After<'_, '_>>,
    have: Threads,
) -> Option<Add> {
    let pj = events[j].tid;
    // The position of the first step of each thread among those not after step j.
    let mut first: Vec<usize> = Vec::new();
    let mut stepped: Threads = 0;
    let tail = events[j + 1..].iter().copied().chain(last.ok());
    let mut prefer = None;
    for (k, e) in tail.enumerate() {
        let k = k + j + 1;
        stepped |= bit(e.tid);
        let is_last = last.is_ok_and(|l| std::ptr::eq(l, e));
        // `last` races with step j: it is in `v` though ordered after j by that race.
        if !is_last && e.covers(pj, j) {
            continue;
        }
        let initial = first
            .iter()
            .enumerate()
            .all(|(u, &f)| f == usize::MAX || !e.covers(u as ThreadId, f));
        if initial {
            if have & bit(e.tid) != 0 {
                return None;
            }
            if is_last || prefer.is_none() {
                prefer = Some(e.tid);
            }
        }
        let t = e.tid as usize;
        if first.len() <= t {
            first.resize(t + 1, usize::MAX);
        }
        if first[t] == usize::MAX {
            first[t] = k;
        }
    }
    if let Some(thread) = prefer {
        return Some(Add::One { at: j, thread });
    }
    let Err(after) = last else {
        unreachable!("the racing step is an initial when no step before it is")
    };
    // Every step of the path after step j happens after it: `v` starts after the
    // path, with the first step after the path that does not happen after step j
    // (`dpor`, "First steps"). Its thread is not step j's (program order), has no
    // step on the path after j (all of those happen after it), and was not created by
    // step j or a later step (its steps would happen after that one): not in `ordered`.
    let created = events[j..].iter().fold(0, |set, e| set | e.created);
    let ordered = stepped | bit(pj) | created;
    let mut threads = !ordered & !have & after.future;
    if let Some((summary, explored)) = after.first {
        threads = first_of_v(events, j, ordered, summary, explored) & !have;
    }
    (threads != 0).then_some(Add::All { at: j, threads })
}

/// The threads that can take the first step of `v` for a race of step j (every step
/// of the path after it happening after it) with a step after the path, which starts
/// at the stored state the path reached, from which `explored` was explored. That
/// step `s` does not happen after step j, and every step after the path before it
/// does. So, by the first step `g` explored from the stored state on the way:
/// - `g`'s thread, when not `ordered`: `g` is `s` unless it happens after step j
///   (`s` may also race with step j directly: it is then the racing step itself);
/// - when `g` may happen after step j (its thread is `ordered`, or it depends on step
///   j or a step after it), every thread not `ordered` nor `g`'s with a first step
///   after `g`'s successor independent of the path's steps after j and of `g`: the
///   steps that happen after step j, on which a step that does not must not depend
///   (the racing step depends on step j itself, so not on step j).
fn first_of_v(
    events: &[&Event],
    j: usize,
    ordered: Threads,
    summary: &Summary,
    explored: &Explored,
) -> Threads {
    let mut after_j: Vec<&Footprint> = events[j + 1..].iter().map(|e| &e.coarse).collect();
    let with_j: Vec<&Footprint> = events[j..].iter().map(|e| &e.coarse).collect();
    let mut threads: Threads = 0;
    for g in explored.edges {
        let tg = bit(g.tid);
        if ordered & tg == 0 {
            threads |= tg;
            if with_j.iter().all(|f| g.coarse.independent(f)) {
                continue;
            }
        }
        let excluded = ordered | tg;
        after_j.push(&g.coarse);
        for &to in &g.to {
            // Every successor's component is closed with the stored state's; should one
            // not be, the stored state's own first steps include its successors'.
            let next = (explored.summary_of)(to).unwrap_or(summary);
            for (u, _) in next.first.iter().enumerate() {
                let u = u as ThreadId;
                if excluded & bit(u) == 0 && next.first_may_commute(u, &after_j) {
                    threads |= bit(u);
                }
            }
        }
        after_j.pop();
    }
    threads
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(obj: u32, write: bool) -> Footprint {
        let mut f = Footprint::default();
        f.add(obj, 0, 4, write);
        f
    }

    /// Steps one after the other from the root, each raced against the ones before.
    fn path(steps: &[(ThreadId, Footprint)]) -> (Vec<Event>, Vec<Vec<Add>>) {
        let mut events: Vec<Event> = Vec::new();
        let mut adds = Vec::new();
        for (t, f) in steps {
            let refs: Vec<&Event> = events.iter().collect();
            let bt = vec![0; refs.len()];
            let (e, a) = new_step(&refs, &bt, *t, f.clone(), f.coarsened(100), 0, 0, 0, false);
            events.push(e);
            adds.push(a);
        }
        (events, adds)
    }

    #[test]
    fn a_write_and_a_later_read_of_another_thread_race() {
        let (_, adds) = path(&[(0, fp(1, true)), (1, fp(1, false))]);
        assert_eq!(adds[1], vec![Add::One { at: 0, thread: 1 }]);
    }

    #[test]
    fn independent_steps_do_not_race() {
        let (_, adds) = path(&[(0, fp(1, true)), (1, fp(2, true))]);
        assert!(adds[1].is_empty());
    }

    #[test]
    fn a_race_ordered_through_a_third_step_is_not_immediate() {
        // 0 writes x; 1 reads x and writes y; 2 reads y then x: 2's read of x happens
        // after 0's write through 1.
        let mut xy = fp(1, false);
        xy.union(&fp(2, true));
        let mut yx = fp(2, false);
        yx.union(&fp(1, false));
        let (_, adds) = path(&[(0, fp(1, true)), (1, xy), (2, yx)]);
        assert_eq!(adds[2], vec![Add::One { at: 1, thread: 2 }]);
    }

    #[test]
    fn the_initial_is_an_earlier_independent_step_when_there_is_one() {
        // 0 writes x; 1 writes z; 2 reads z and x. For the race of 0's write with 2's
        // read, v = [1's step, 2's step] (2 reads what 1 wrote): its initial is 1.
        let mut zx = fp(3, false);
        zx.union(&fp(1, false));
        let (_, adds) = path(&[(0, fp(1, true)), (1, fp(3, true)), (2, zx)]);
        assert!(adds[2].contains(&Add::One { at: 0, thread: 1 }));
    }

    #[test]
    fn an_initial_already_scheduled_adds_nothing() {
        let (events, _) = path(&[(0, fp(1, true))]);
        let refs: Vec<&Event> = events.iter().collect();
        let (_, adds) = new_step(
            &refs,
            &[0b10],
            1,
            fp(1, false),
            fp(1, false),
            0,
            0,
            0,
            false,
        );
        assert!(adds.is_empty());
    }

    #[test]
    fn a_summary_races_with_the_path_unless_ordered_before_its_thread() {
        let (events, _) = path(&[(0, fp(1, true)), (1, fp(2, true))]);
        let refs: Vec<&Event> = events.iter().collect();
        let mut s = Summary::default();
        s.add(2, &fp(1, false));
        // Thread 2 has no step on the path: it races with 0's write; the path's steps
        // after it (1's) are its initials.
        assert_eq!(
            replay(&refs, &[0, 0], &s, None),
            vec![Add::One { at: 0, thread: 1 }]
        );
        // Thread 1 after its own step that read x: ordered, no race.
        let mut xy = fp(1, false);
        xy.union(&fp(2, true));
        let (events, _) = path(&[(0, fp(1, true)), (1, xy)]);
        let refs: Vec<&Event> = events.iter().collect();
        let mut s = Summary::default();
        s.add(1, &fp(1, true));
        assert!(replay(&refs, &[0, 0], &s, None).is_empty());
    }

    #[test]
    fn a_summary_race_with_the_last_step_adds_every_thread_without_a_step_after_it() {
        // A partial summary (a state on a cycle): its first steps are not all known.
        let (events, _) = path(&[(0, fp(1, true))]);
        let refs: Vec<&Event> = events.iter().collect();
        let mut s = Summary::default();
        s.add(1, &fp(1, false));
        s.add(2, &fp(3, false));
        assert_eq!(
            replay(&refs, &[0b1], &s, None),
            vec![Add::All {
                at: 0,
                threads: 0b110
            }]
        );
    }

    fn edge(tid: ThreadId, coarse: Footprint, to: u32) -> Edge {
        Edge {
            tid,
            coarse,
            to: vec![to],
        }
    }

    /// Replays `summary` of a stored state reached by `steps`, from which `edges` were
    /// explored, to successors whose summaries are `next` (state 1 onwards).
    fn replay_closed(
        steps: &[(ThreadId, Footprint)],
        summary: &Summary,
        edges: &[Edge],
        next: &[Summary],
    ) -> Vec<Add> {
        let (events, _) = path(steps);
        let refs: Vec<&Event> = events.iter().collect();
        let summary_of = |s: u32| next.get(s as usize - 1);
        let explored = Explored {
            edges,
            summary_of: &summary_of,
        };
        replay(&refs, &vec![0; refs.len()], summary, Some(&explored))
    }

    #[test]
    fn the_first_step_after_the_state_not_ordered_after_the_racing_one_starts_v() {
        // 0 writes x into the state; from it 1 writes w (independent of the write),
        // then 2 reads x. Every run from the state starts with 1's step, which does
        // not happen after 0's: 1 is an initial of every `v`, 2 is not.
        let mut next = Summary::default();
        next.add(2, &fp(1, false));
        let mut s = next.clone();
        s.add(1, &fp(3, true));
        let adds = replay_closed(&[(0, fp(1, true))], &s, &[edge(1, fp(3, true), 1)], &[next]);
        assert_eq!(
            adds,
            vec![Add::All {
                at: 0,
                threads: 0b10
            }]
        );
    }

    #[test]
    fn a_first_step_ordered_after_the_racing_one_leaves_v_to_the_next_first_steps() {
        // 0 writes x into the state; from it 0 reads y (program order: after its
        // write), then 2 reads x: `v` is 2's read alone, found among the first steps
        // after 0's read. 1's first step there writes y: it happens after 0's read,
        // so it starts no `v`. Without looking past 0's step, 2 would be missed.
        let mut next = Summary::default();
        next.add(2, &fp(1, false));
        next.add(1, &fp(2, true));
        let mut s = Summary::default();
        s.add(0, &fp(2, false));
        s.absorb(&next, Some(0));
        let adds = replay_closed(
            &[(0, fp(1, true))],
            &s,
            &[edge(0, fp(2, false), 1)],
            &[next],
        );
        assert_eq!(
            adds,
            vec![Add::All {
                at: 0,
                threads: 0b100
            }]
        );
    }

    #[test]
    fn a_step_touching_everything_races_with_the_steps_after_the_state() {
        // 0's step touches everything (a thread's creation, say) and leads into the
        // state, where 1 reads x first: that read races with it (nothing else orders
        // it after), so 1 is added before 0's step. The steps before 0's do not race.
        let mut s = Summary::default();
        s.add(1, &fp(1, false));
        let adds = replay_closed(
            &[(1, fp(1, true)), (0, Footprint::everything())],
            &s,
            &[edge(1, fp(1, false), 1)],
            &[Summary::default()],
        );
        assert_eq!(
            adds,
            vec![Add::All {
                at: 1,
                threads: 0b10
            }]
        );
    }

    #[test]
    fn a_summary_names_a_threads_first_steps_apart_from_its_later_ones() {
        let mut next = Summary::default();
        next.add(1, &fp(1, true));
        next.add(2, &fp(2, true));
        let mut s = Summary::default();
        s.add(1, &fp(3, true));
        s.absorb(&next, Some(1));
        // 1's first step is the one from the state; 2's comes from the successor.
        assert!(s.first_may_commute(1, &[&fp(1, true)]));
        assert!(!s.first_may_commute(1, &[&fp(3, false)]));
        assert!(!s.first_may_commute(2, &[&fp(2, false)]));
        assert!(!s.first_may_commute(0, &[]));
    }

    #[test]
    fn steps_of_different_epochs_compare_coarsened() {
        // Heap objects 200 and 300 (globals end at 100) are one object across epochs.
        let (events, _) = path(&[(0, fp(200, true))]);
        let refs: Vec<&Event> = events.iter().collect();
        let (_, same) = new_step(
            &refs,
            &[0],
            1,
            fp(300, true),
            fp(300, true).coarsened(100),
            0,
            0,
            0,
            false,
        );
        assert!(same.is_empty());
        let (_, other) = new_step(
            &refs,
            &[0],
            1,
            fp(300, true),
            fp(300, true).coarsened(100),
            1,
            0,
            0,
            false,
        );
        assert_eq!(other, vec![Add::One { at: 0, thread: 1 }]);
    }
}
