//! Partial-order reduction by persistent sets (Godefroid, "Partial-Order Methods for
//! the Verification of Concurrent Systems", ch. 4), which stores fewer states, unlike
//! sleep sets (`sleep`). At a state, a set T of enabled threads is expanded instead of
//! all of them when no thread outside T can, by any sequence of its own transitions
//! before one of T's runs, do anything dependent on the next transition of a thread of
//! T (every choice variant; `footprint`). Then any path from the state that starts
//! with others' transitions can be reordered to start with a T transition, so the
//! reduced search reaches every deadlock (terminal state: the outcomes), every
//! transition error and every blocked-forever thread of the full search.
//!
//! What another thread u may still do is `future`'s static over-approximation from
//! its call stack (and its end: a thread's end writes the end of that thread; main's
//! ends the process, which is everything). A thread that is blocked until a thread of
//! T acts (`deadlock::blocked_until`: a join of it, a lock it holds, its atomic
//! section), directly or through a chain of such waits, cannot move before T does: its
//! future is left out, provided that no thread outside may write what its wait reads.
//! A thread whose future conflicts is added to T (or, when blocked, the thread it
//! waits for); T must stay a proper subset of the enabled threads. T must keep at
//! least two threads running in every state the others can reach (T's and the
//! blocked ones): the last thread left running runs its accesses invisibly, which
//! would change T's transitions.
//!
//! Mutexes. A mutex native (`future::MUTEX_NATIVES`) touches its mutex alone (and a
//! timed lock's timeout): its footprint is the bytes of the mutex it reads and writes
//! (`pthread/mutex.rs`), so a future counts it as an access of that mutex
//! (`Effects::mutexes`, dependent on any access of the mutex by T). A thread's future
//! stops at a blocking lock (`pthread_mutex_lock`, `mtx_lock`) of a mutex at a
//! constant address held by a thread that does not move before T does (a member of T,
//! or a thread blocked until T acts): what comes after that lock cannot run before T
//! acts. Why: while the holder does not move, the mutex stays held unless something
//! writes it other than through the mutex natives (another thread's lock blocks,
//! fails or times out without writing it; its unlock is an error that writes nothing;
//! only the holder unlocks). So the set is refused when the future of a thread
//! outside may write such a mutex by other means (a `memset`, an init: `may_write`
//! with the mutex natives left out); by induction over the outside threads'
//! transitions, each stays within its stopped future and none frees the mutex. The
//! same holds for the mutex a blocked thread of the list waits for. A frame that
//! cannot return without passing such a lock hides the frames below it. Futures are
//! computed again whenever the set of held mutexes changes as T grows.
//!
//! The cycle proviso (the "ignoring" problem): a thread left out of every set round a
//! cycle of reduced states must not be put off for ever. A reduced set must hold a
//! member with a transition that moves its thread strictly forward in a fixed order of
//! its call stacks (`advances`: frames compared from the bottom by the rank of their
//! block, `future`, then the instruction; a pushed frame is further; an ended thread
//! furthest). Such a transition changes no other thread (one that does touches
//! everything, and is never in a reduced set). The argument: take a reached state s
//! and a path w of the full search from s to an error (or an outcome). If s is fully
//! expanded, w's first transition is expanded. If a thread of the set moves in w, its
//! first transition there is independent of those before it and can go first. Either
//! way w gets shorter. Otherwise no transition of w is by a set member, so each is
//! independent of every member's, and w still runs after a forward transition of the
//! set, which moves one thread forward and no other: the multiset of thread positions
//! grows strictly, so over finitely many states such steps end, at a state of one of
//! the first two kinds (with thread symmetry, a permutation of threads has the same
//! multiset). So the other members may go round a loop, a spin that comes back to the
//! same state included, as long as one member moves on; a set of spinners alone is
//! refused. The proviso depends on the state alone (as in Bošnački and Holzmann,
//! "Improving Spin's partial-order reduction for breadth-first search"), so both
//! searches, on any number of workers, build the same reduced graph.
//!
//! Deadlocks and blocked-forever threads are stable (nothing outside T can undo them)
//! and so are found at a state the reduced search reaches. Non-termination is an
//! error of a transition. A failure is searched again without reduction (`explore`),
//! so the counterexample is the full search's shortest one.
//!
//! Sleep sets are not combined with it: their argument ("the sleeping thread's
//! successor is reached through the other order") needs the other order's states to
//! expand that thread, which a reduced state may not. With race tracking it is off:
//! the race data's vector clocks make every synchronisation dependent, and races are
//! checked in their own SC run.

use super::deadlock;
use super::footprint::{self, Footprint};
use super::future::{Effects, Futures};
use crate::interp::Machine;
use crate::pthread::mutex;
use crate::state::{State, Thread, ThreadId};

/// What running one thread's next transition (every choice variant) showed.
#[derive(Clone, Debug, Default)]
pub(crate) struct ThreadRun {
    /// Some variant could move (made progress, was pruned or failed).
    pub(crate) enabled: bool,
    /// What the variants touched, together.
    pub(crate) footprint: Footprint,
    /// Some variant made progress and moved the thread forward (`advances`).
    pub(crate) advances: bool,
}

/// Does the thread move strictly forward from `before` to `after` in the order of the
/// module documentation?
pub(crate) fn advances(futures: &Futures, before: &Thread, after: &Thread) -> bool {
    if !before.status.is_running() {
        return false;
    }
    if !after.status.is_running() {
        return true;
    }
    for (a, b) in before.frames.iter().zip(&after.frames) {
        if a.func != b.func {
            return false;
        }
        let ka = (futures.rank(a.func, a.block), a.ip);
        let kb = (futures.rank(b.func, b.block), b.ip);
        if ka != kb {
            return kb > ka;
        }
    }
    after.frames.len() > before.frames.len()
}

/// What thread `u` may still do in `st` before a mutex `held` says true of is
/// released.
fn future_of(
    machine: &Machine<'_>,
    futures: &Futures,
    st: &State,
    u: ThreadId,
    held: &dyn Fn(u64) -> bool,
) -> Effects {
    let th = st.thread(u);
    if u == 0 || futures.exit_runs_code || machine.has_thread_exit_hook() {
        // Main's end ends the process; key destructors and exit hooks run code.
        return Effects::everything();
    }
    let mut e = Effects::default();
    if !futures.add_frames_until_held(&th.frames, held, &mut e) {
        return Effects::everything();
    }
    e
}

/// Could a transition with footprint `fp` be dependent on something thread `u`, with
/// future `fut`, may still do (its end included)?
fn conflicts(fp: &Footprint, fut: &Effects, u: ThreadId, program_globals: usize) -> bool {
    if fp.touches_everything() || fut.everything {
        return true;
    }
    let end = footprint::thread_object(u);
    fp.any_access(|obj, write| {
        if footprint::is_thread_state_object(obj) {
            // Every step of `u` reads its own state; only a change of it conflicts.
            return write && obj == footprint::thread_state_object(u);
        }
        if fut.write_any || (write && fut.read_any) {
            return true;
        }
        if obj == end || (obj == footprint::OUTPUT && fut.output) {
            return true;
        }
        if obj >= 1 && (obj as usize) <= program_globals {
            let g = obj - 1;
            return fut.writes.contains(g)
                || fut.mutexes.contains(g)
                || (write && fut.reads.contains(g));
        }
        false
    })
}

/// Can `fut` write object `obj` (a global, or anything)? With `held`, `obj` is a mutex
/// whose holder does not move: locking or unlocking it cannot write it.
fn may_write(fut: &Effects, obj: u32, program_globals: usize, held: bool) -> bool {
    let global = |set: &super::future::Globals| {
        obj >= 1 && (obj as usize) <= program_globals && set.contains(obj - 1)
    };
    fut.everything || fut.write_any || global(&fut.writes) || (!held && global(&fut.mutexes))
}

/// The threads to expand at `st` (a bitmask of thread ids), or None to expand all.
/// `run(t)` runs thread t's next transition (the caller keeps what it reached);
/// it is called only for threads that may be in the set, at most once each.
pub(crate) fn choose(
    machine: &Machine<'_>,
    futures: &Futures,
    st: &State,
    run: &mut dyn FnMut(ThreadId) -> ThreadRun,
) -> Option<u64> {
    let n = st.threads.len();
    if !(2..=64).contains(&n) || st.exit_code.is_some() || st.atomic_owner.is_some() {
        return None;
    }
    if futures.exit_runs_code || machine.has_thread_exit_hook() {
        // Every thread's future is everything (`future_of`): no set is smaller.
        return None;
    }
    let mut sets = SetSearch::new(machine, futures, st);
    if (0..n).filter(|&u| sets.candidate(u)).count() < 2 {
        return None;
    }
    for t in 0..n {
        if sets.candidate(t) {
            if let Some(set) = sets.set_from(t, run) {
                return Some(set);
            }
        }
    }
    None
}

/// What `choose` knows of one state while it tries the sets that start from each
/// candidate thread: the threads' waits, and the futures and transitions it has
/// computed so far (each at most once).
struct SetSearch<'a, 'p> {
    machine: &'a Machine<'p>,
    futures: &'a Futures,
    st: &'a State,
    n: usize,
    /// Program globals: the objects 1..=globals.
    globals: usize,
    running: Vec<bool>,
    /// For a running thread blocked until others act: those threads, and the objects
    /// its wait reads (`deadlock::blocked_until`).
    waits: Vec<Option<(Vec<ThreadId>, Vec<u32>)>>,
    /// The holders of the mutexes blocking locks take (the first 64; others are never
    /// counted as held).
    owners: Vec<Option<ThreadId>>,
    /// The threads' futures, computed with the mutexes of `futures_for` held by
    /// threads that do not move (futures stop at the locks of those mutexes).
    futures_of: Vec<Option<Effects>>,
    futures_for: u64,
    runs: Vec<Option<ThreadRun>>,
}

/// What one round of growing a set found.
enum Grow {
    /// A thread joined the set.
    Added,
    /// No thread outside depends on the set.
    Closed,
    /// No set from this start thread will do.
    Refused,
}

impl<'a, 'p> SetSearch<'a, 'p> {
    fn new(machine: &'a Machine<'p>, futures: &'a Futures, st: &'a State) -> Self {
        let n = st.threads.len();
        let running: Vec<bool> = st.threads.iter().map(|t| t.status.is_running()).collect();
        let waits = (0..n as ThreadId)
            .map(|u| {
                if running[u as usize] {
                    deadlock::blocked_until(machine, st, u)
                } else {
                    None
                }
            })
            .collect();
        let owners = futures
            .lock_addresses
            .iter()
            .take(64)
            .map(|&a| mutex::owner_in(st, a))
            .collect();
        SetSearch {
            machine,
            futures,
            st,
            n,
            globals: machine.program.globals.len(),
            running,
            waits,
            owners,
            futures_of: vec![None; n],
            futures_for: 0,
            runs: vec![None; n],
        }
    }

    /// A running thread that waits for no other: one that may start or join a set.
    fn candidate(&self, u: usize) -> bool {
        self.running[u] && self.waits[u].is_none()
    }

    /// The persistent set grown from thread `t`, if one passes every test.
    fn set_from(&mut self, t: usize, run: &mut dyn FnMut(ThreadId) -> ThreadRun) -> Option<u64> {
        let mut set: u64 = 1 << t;
        loop {
            let waiting = self.waiting_on(set);
            let still = set | waiting;
            let mask = self.held_mask(still);
            if mask != self.futures_for {
                self.futures_of.iter_mut().for_each(|f| *f = None);
                self.futures_for = mask;
            }
            match self.grow(&mut set, waiting, run) {
                Grow::Added => {
                    if (0..self.n).all(|u| !self.candidate(u) || set & (1 << u) != 0) {
                        return None;
                    }
                }
                Grow::Refused => return None,
                Grow::Closed => {
                    return self.acceptable(set, waiting, run).then_some(set);
                }
            }
        }
    }

    /// The threads blocked until a thread of `set` (or of this list) acts.
    fn waiting_on(&self, set: u64) -> u64 {
        let mut waiting: u64 = 0;
        let mut grew = true;
        while grew {
            grew = false;
            for (u, wait) in self.waits.iter().enumerate() {
                let bit = 1u64 << u;
                if (set | waiting) & bit != 0 {
                    continue;
                }
                if let Some((on, _)) = wait {
                    if on.iter().any(|&h| (set | waiting) & (1 << h) != 0) {
                        waiting |= bit;
                        grew = true;
                    }
                }
            }
        }
        waiting
    }

    /// Which of the first 64 lock mutexes are held by the threads of `still`.
    fn held_mask(&self, still: u64) -> u64 {
        let n = self.n;
        self.owners.iter().enumerate().fold(0, |m, (i, o)| match o {
            Some(o) if (*o as usize) < n && still & (1 << o) != 0 => m | 1 << i,
            _ => m,
        })
    }

    /// Thread u's future, with the mutexes of `futures_for` held.
    fn future(&mut self, u: usize) -> Effects {
        let (machine, futures, st, mask) = (self.machine, self.futures, self.st, self.futures_for);
        let held = move |a: u64| {
            futures
                .lock_addresses
                .binary_search(&a)
                .is_ok_and(|i| i < 64 && mask & (1 << i) != 0)
        };
        self.futures_of[u]
            .get_or_insert_with(|| future_of(machine, futures, st, u as ThreadId, &held))
            .clone()
    }

    fn run_of(&mut self, v: usize, run: &mut dyn FnMut(ThreadId) -> ThreadRun) -> &ThreadRun {
        self.runs[v].get_or_insert_with(|| run(v as ThreadId))
    }

    /// Adds to `set` the first thread outside (neither in it nor `waiting`) that may act
    /// before the set and touch what it does, or, when that thread is blocked, a thread
    /// it waits for. Refused when a member is not enabled or no thread can join.
    fn grow(
        &mut self,
        set: &mut u64,
        waiting: u64,
        run: &mut dyn FnMut(ThreadId) -> ThreadRun,
    ) -> Grow {
        for u in 0..self.n {
            if !self.running[u] || (*set | waiting) & (1u64 << u) != 0 {
                continue;
            }
            let fut = self.future(u);
            let mut dependent = fut.everything;
            if !dependent {
                for v in (0..self.n).filter(|&v| *set & (1 << v) != 0) {
                    let globals = self.globals;
                    let r = self.run_of(v, run);
                    if !r.enabled {
                        return Grow::Refused;
                    }
                    if conflicts(&r.footprint, &fut, u as ThreadId, globals) {
                        dependent = true;
                        break;
                    }
                }
            }
            if !dependent {
                continue;
            }
            let joiner = if self.candidate(u) {
                Some(u)
            } else {
                self.waits[u]
                    .as_ref()
                    .and_then(|(on, _)| on.iter().map(|&h| h as usize).find(|&h| self.candidate(h)))
            };
            return match joiner {
                Some(j) => {
                    *set |= 1 << j;
                    Grow::Added
                }
                None => Grow::Refused,
            };
        }
        Grow::Closed
    }

    /// Does the closed `set` pass the remaining tests: every member enabled, one moving
    /// forward (the cycle proviso), a proper subset of the enabled threads with two
    /// left running, and nothing outside able to undo a wait the set relies on?
    fn acceptable(
        &mut self,
        set: u64,
        waiting: u64,
        run: &mut dyn FnMut(ThreadId) -> ThreadRun,
    ) -> bool {
        let mut forward = false;
        for v in (0..self.n).filter(|&v| set & (1 << v) != 0) {
            let r = self.run_of(v, run);
            if !r.enabled {
                return false;
            }
            forward |= r.advances;
        }
        if !forward {
            return false;
        }
        let outside_enabled = (0..self.n).any(|u| self.candidate(u) && set & (1 << u) == 0);
        if !outside_enabled || (set | waiting).count_ones() < 2 {
            return false;
        }
        !self.outside_may_write_waits(set | waiting, waiting)
            && !self.outside_may_write_held(set | waiting)
    }

    /// The running threads outside `still`.
    fn outside(&self, still: u64) -> Vec<usize> {
        (0..self.n)
            .filter(|&u| self.running[u] && still & (1 << u) == 0)
            .collect()
    }

    /// May a thread outside write what a blocked thread's wait reads? (A mutex held by
    /// a thread that does not move cannot be written by locking it.)
    fn outside_may_write_waits(&mut self, still: u64, waiting: u64) -> bool {
        let outside = self.outside(still);
        for w in (0..self.n).filter(|&w| waiting & (1 << w) != 0) {
            let on_mutex = self
                .machine
                .at_native(self.st, w as ThreadId)
                .is_some_and(|(native, _)| native.name == "pthread_mutex_lock");
            let objects = self.waits[w]
                .as_ref()
                .map(|(_, o)| o.clone())
                .unwrap_or_default();
            for &u in &outside {
                let fut = self.future(u);
                if objects
                    .iter()
                    .any(|&o| may_write(&fut, o, self.globals, on_mutex))
                {
                    return true;
                }
            }
        }
        false
    }

    /// May a thread outside write a held mutex whose locks the futures stop at?
    fn outside_may_write_held(&mut self, still: u64) -> bool {
        let outside = self.outside(still);
        let mask = self.futures_for;
        for (i, &a) in self.futures.lock_addresses.iter().take(64).enumerate() {
            if mask & (1 << i) == 0 {
                continue;
            }
            let obj = crate::value::ptr_parts(a).0;
            for &u in &outside {
                let fut = self.future(u);
                if may_write(&fut, obj, self.globals, true) {
                    return true;
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads(g: u32) -> Effects {
        let mut e = Effects::default();
        e.reads.insert(g);
        e
    }

    fn writes(g: u32) -> Effects {
        let mut e = Effects::default();
        e.writes.insert(g);
        e
    }

    fn access(obj: u32, write: bool) -> Footprint {
        let mut f = Footprint::default();
        f.add(obj, 0, 4, write);
        f
    }

    #[test]
    fn a_future_write_conflicts_with_a_read_and_a_future_read_with_a_write() {
        // Global 2 is object 3.
        assert!(conflicts(&access(3, false), &writes(2), 1, 10));
        assert!(conflicts(&access(3, true), &reads(2), 1, 10));
        assert!(!conflicts(&access(3, false), &reads(2), 1, 10));
        assert!(!conflicts(&access(4, true), &writes(2), 1, 10));
    }

    #[test]
    fn any_memory_and_everything_conflict() {
        let any_write = Effects {
            write_any: true,
            ..Effects::default()
        };
        assert!(conflicts(&access(9, false), &any_write, 1, 10));
        let any_read = Effects {
            read_any: true,
            ..Effects::default()
        };
        assert!(conflicts(&access(9, true), &any_read, 1, 10));
        assert!(!conflicts(&access(9, false), &any_read, 1, 10));
        assert!(conflicts(
            &Footprint::default(),
            &Effects::everything(),
            1,
            10
        ));
        assert!(conflicts(
            &Footprint::everything(),
            &Effects::default(),
            1,
            10
        ));
    }

    #[test]
    fn a_threads_end_conflicts_with_a_join_of_it() {
        let join = access(footprint::thread_object(2), false);
        assert!(conflicts(&join, &Effects::default(), 2, 10));
        assert!(!conflicts(&join, &Effects::default(), 3, 10));
    }

    #[test]
    fn a_change_of_a_threads_own_state_conflicts_with_its_future_alone() {
        // Every step of a thread reads its own state: a step of another thread that
        // writes it (a join, cancel request, the process's end) is against its future
        // even when that future touches nothing else; reading it is no conflict, even
        // with a future that writes any memory.
        let change = access(footprint::thread_state_object(2), true);
        assert!(conflicts(&change, &Effects::default(), 2, 10));
        assert!(!conflicts(&change, &Effects::default(), 3, 10));
        let any_write = Effects {
            write_any: true,
            ..Effects::default()
        };
        let own = access(footprint::thread_state_object(3), false);
        assert!(!conflicts(&own, &any_write, 2, 10));
    }
}
