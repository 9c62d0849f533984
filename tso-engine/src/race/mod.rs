//! Data-race detection: C11/C++11 races on non-atomic memory.
//!
//! **The definition.** Two accesses race when they touch overlapping bytes, come from
//! different threads, at least one writes, at least one is not atomic (plain or
//! `volatile`), and happens-before orders neither. Happens-before is program order
//! plus synchronises-with: release/acquire and seq_cst atomics (RMW and compare-exchange
//! included, release sequences as in C++20: a release store heads one and RMWs continue
//! it), fences (a release fence publishes through later relaxed stores, an acquire
//! fence takes what earlier relaxed loads saw), mutex and spin lock unlock→lock, rwlock
//! unlock→lock, condition signal→wake, create→start, exit→join, barrier, once, and the
//! `__VERIFIER_atomic_*` sections. Deallocation (free, delete, realloc's release, a
//! stack frame's end) is a plain write of the whole object (`dealloc`). Races are
//! defined on the interleavings the engine explores under sequential consistency: every
//! reachable interleaving is visited, so a race is reported exactly when some execution
//! has one.
//!
//! **The bookkeeping** (FastTrack-style, *"FastTrack: Efficient and Precise Dynamic Race
//! Detection"*, Flanagan and Freund): a vector clock per thread, one per
//! synchronisation location (a mutex's or an atomic's address), and per byte of shared
//! memory the accesses that may still race with a later one (kept per run of bytes with
//! the same history, `shadow.rs`). An access is an epoch
//! (thread, that thread's clock) with its kind. A new access drops an older one it
//! makes redundant: one that happens-before it, when every later access racing with the
//! old one would also race with the new one (the new one writes or the old one reads,
//! and the new one is not atomic or the old one is). So a byte keeps at most a few
//! accesses per thread. Memory only one thread can reach (an object not yet shared,
//! `Memory::mark_shared`) has no per-byte history: its accesses are kept object-wide
//! (`pending`), by the same rule, so at most one write and one read per kind. When the
//! object becomes shared, every byte gets that history: a fresh node written, then
//! published after a release fence by a relaxed store, is known to a reader that
//! acquired it. Object-wide can only claim more: the latest access stands for the
//! bytes an earlier one touched, and whoever knows the later access knows the earlier
//! (both are in one thread's program order or ordered by a join), so no race is hidden;
//! an earlier byte written before a release that a reader did acquire, with another
//! byte written after it, is reported (a finer history would cost every private
//! access, which is most of them).
//!
//! A global that only atomic operations name (`atomic_only.rs`) keeps no history at
//! all: two atomics never race and no plain access can reach it, so its accesses only
//! synchronise.
//!
//! **What is part of the state** (`serialize`, called by the canonical form): the race
//! data decides future verdicts (`--races deny`) and reports, so two states that differ
//! in it must not merge. But clock values grow forever, which would make every loop
//! that synchronises an infinite state space, and most differences between clocks can
//! never matter. A clock value is only ever compared with the epochs of recorded
//! accesses (`epoch ≤ C[t]`: does this clock know that access?), joins are maxima, and
//! a running thread's own component is larger than that component anywhere else, so
//! its future accesses are unknown to every other clock whatever their values. So each
//! component of every clock is serialised as *how many of that thread's recorded
//! access epochs it covers*: states that agree on who knows which recorded access have
//! the same future. Accesses every running thread already knows can never race again
//! and are left out (and with them the distinctions they made), and so are objects the
//! state no longer reaches, release clocks that cover nothing, and the clocks of
//! threads nobody can join any more. Where an access happened (its source line) is
//! kept for the report but is not part of the state: it never changes what is
//! reachable, only which of two equivalent racing accesses a report names. A state
//! rebuilt from the store has lost it (`sites_lost`): the breadth-first search reports
//! its races from the original state, replayed along its path (`explore::held`). Bytes a
//! path has already reported (`--races warn` reports a location once) are state: they
//! keep no history and record no access any more, so their later races are not
//! reported again on that path. Keeping these marks outside the state would make the
//! states, and so which access pair a report names, depend on the order the search
//! (and its workers) reached them. An unchanged `RaceState` keeps its chunk ids between
//! states (`reuse.rs`).
//!
//! **Reads no one can still write** (`MachineOptions::race_read_futures`, on by
//! default). A recorded read can only race with a later write of its
//! bytes by a thread that does not know it, so it decides nothing once every running
//! thread that does not know it can no longer write them. The race data cannot tell
//! (the store that initialises a fresh node is the one that could write a published
//! one); the threads' static futures can (`explore::future`, with the synchronisation
//! natives judged by what they write): a heap block is only ever written through a
//! pointer the program text does not bound, so a thread with no such write left
//! (`writers`, set by the interpreter after every transition) writes no heap block.
//! With it, a heap read is left out of the serialised form while no running unaware
//! thread is such a writer. Exact: such a read never races in any continuation (a
//! successor's futures are within its state's), no other record or clock depends on
//! it, and the writers are a function of where the threads are, which the canonical
//! form holds. On the race-free Treiber stack these reads split most states.

mod atomic_only;
mod clock;
mod messages;
mod permute;
pub(crate) mod reuse;
pub(crate) mod screen;
mod shadow;
mod sorted;

pub(crate) use atomic_only::{atomic_only_globals, is_atomic_only};
pub use clock::VectorClock;
pub use messages::{MessageEvent, MessageKey};

use crate::bytes::Reader;
use crate::ir::MemOrder;
use crate::memory::ObjId;
use shadow::{Run, Shadow};
use smallvec::SmallVec;
use sorted::SortedMap;
use std::sync::Arc;

/// A history as serialised: (thread, covered count, kind) of its accesses.
type Keys = SmallVec<[(u32, u32, u8); 8]>;

/// What to do with data races (`--races`; its default is `Warn`, while the engine's
/// `MachineOptions` default to `Allow`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RacePolicy {
    /// Not tracked at all (no cost).
    Allow,
    /// Reported beside the verdict, which they do not change.
    #[default]
    Warn,
    /// A race is a failure of kind `data-race`.
    Deny,
}

impl RacePolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            RacePolicy::Allow => "allow",
            RacePolicy::Warn => "warn",
            RacePolicy::Deny => "deny",
        }
    }
    pub fn parse(s: &str) -> Option<RacePolicy> {
        match s {
            "allow" => Some(RacePolicy::Allow),
            "warn" => Some(RacePolicy::Warn),
            "deny" => Some(RacePolicy::Deny),
            _ => None,
        }
    }
}

/// One recorded access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub tid: u32,
    /// The thread's own clock component when it accessed.
    clock: u32,
    pub write: bool,
    pub atomic: bool,
    /// The source location (in the user's code) of the access; for the report only.
    pub site: Option<u32>,
}

/// Two racing accesses to the byte `offset` of object `obj`: `first` was recorded
/// earlier on the path, `second` is the access being executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Race {
    pub obj: ObjId,
    pub offset: u32,
    pub first: Access,
    pub second: Access,
    /// `second` deallocates the object (`RaceState::dealloc`).
    pub dealloc: bool,
}

#[derive(Clone, Debug, Default)]
struct ThreadClocks {
    now: VectorClock,
    /// The clock at this thread's last release fence: what its relaxed stores publish.
    fence_release: Option<VectorClock>,
    /// What this thread's relaxed atomic loads saw: its next acquire fence takes it.
    acquired_relaxed: VectorClock,
}

/// The accesses that may still race with a later one, at one byte: usually one or two,
/// kept inline (states are cloned on every transition).
type Cell = SmallVec<[Access; 2]>;

/// The race-detection data of one state.
#[derive(Clone, Debug)]
pub struct RaceState {
    /// Shared between states until a clock changes: a plain access, most of them,
    /// changes only the histories, and copying the clocks with them doubled its cost.
    /// Each thread's clocks are shared too: a synchronising step changes one or two
    /// threads' clocks, and copying every thread's for it was most of its cost.
    threads: Arc<Vec<Arc<ThreadClocks>>>,
    /// Release clocks of synchronisation locations, by (object, offset). Object 0 is
    /// the engine's own: the `__VERIFIER_atomic_*` sections.
    sync: SortedMap<(ObjId, u32), VectorClock>,
    /// The clocks of the messages of a memory model that keeps several writes per
    /// location (`messages.rs`), by location; empty otherwise.
    messages: SortedMap<MessageKey, messages::MessageClocks>,
    shadow: SortedMap<ObjId, Arc<Shadow>>,
    /// The history of objects no other thread can reach yet, object-wide (see the
    /// module documentation).
    pending: SortedMap<ObjId, Cell>,
    /// Rebuilt from the store (`decode`): the accesses' sites are unknown, and objects
    /// are numbered canonically, so a race found here cannot be reported from this
    /// state (`interp::races` leaves it to a replay of the path). Not state.
    rebuilt: bool,
    /// Bit `u`: running thread `u` may still write memory through a pointer the program
    /// text does not bound (`interp::races::update_race_writers`; threads from 64 on always
    /// may). A read of heap memory matters only while such a thread does not know it
    /// (see the module documentation). All ones unless the interpreter computed it:
    /// the rule then leaves nothing out. A function of where the threads are, which
    /// the canonical form holds: not serialised.
    writers: u64,
}

impl Default for RaceState {
    fn default() -> Self {
        RaceState::new()
    }
}

/// The serialised tag of a thread whose clock is no longer used (`serialize`).
const THREAD_GONE: u8 = 4;

/// The synchronisation key of the `__VERIFIER_atomic_*` sections.
pub const ATOMIC_SECTION_KEY: (ObjId, u32) = (0, 0);

impl RaceState {
    /// The main thread (id 0) alone.
    pub fn new() -> RaceState {
        RaceState {
            threads: Arc::new(vec![Arc::new(ThreadClocks {
                now: VectorClock::for_new_thread(0),
                ..Default::default()
            })]),
            sync: SortedMap::default(),
            messages: SortedMap::default(),
            shadow: SortedMap::default(),
            pending: SortedMap::default(),
            rebuilt: false,
            writers: u64::MAX,
        }
    }

    /// The threads that may still write heap memory (see `writers`).
    pub fn writers(&self) -> u64 {
        self.writers
    }

    pub fn set_writers(&mut self, writers: u64) {
        self.writers = writers;
    }

    /// Whether this data was rebuilt from the store, so that the sites of its accesses
    /// are lost (see `rebuilt`).
    pub fn sites_lost(&self) -> bool {
        self.rebuilt
    }

    fn thread(&mut self, tid: u32) -> &mut ThreadClocks {
        let threads = Arc::make_mut(&mut self.threads);
        if threads.len() <= tid as usize {
            threads.resize_with(tid as usize + 1, Default::default);
        }
        Arc::make_mut(&mut threads[tid as usize])
    }

    fn now(&self, tid: u32) -> Option<&VectorClock> {
        self.threads.get(tid as usize).map(|t| &t.now)
    }

    /// An access by `tid` at its current epoch.
    fn stamp(&mut self, tid: u32, write: bool, atomic: bool, site: Option<u32>) -> Access {
        // Read without copying the clocks (the thread's clock exists from its creation).
        let clock = match self.now(tid) {
            Some(now) => now.get(tid),
            None => self.thread(tid).now.get(tid),
        };
        Access {
            tid,
            clock,
            write,
            atomic,
            site,
        }
    }

    /// Thread `tid` accesses `len` bytes at `off` of `obj`. Returns the first race it
    /// has with a recorded access, and records it.
    #[allow(clippy::too_many_arguments)]
    pub fn access(
        &mut self,
        tid: u32,
        obj: ObjId,
        off: u32,
        len: u32,
        write: bool,
        atomic: bool,
        site: Option<u32>,
    ) -> Option<Race> {
        let new = self.stamp(tid, write, atomic, site);
        let mut race = None;
        let RaceState {
            threads, shadow, ..
        } = self;
        let now = &threads[tid as usize].now;
        let known = |a: &Access| known_to(tid, now, a);
        let shadow = Arc::make_mut(shadow.or_default(obj));
        // Bytes already reported (raced runs) are no longer tracked.
        for run in shadow.cover(off, off.saturating_add(len)) {
            if run.raced {
                continue;
            }
            let cell = &mut run.cell;
            if race.is_none() {
                if let Some(old) = cell
                    .iter()
                    .find(|a| (write || a.write) && !(atomic && a.atomic) && !known(a))
                {
                    race = Some(Race {
                        obj,
                        offset: run.start,
                        first: *old,
                        second: new,
                        dealloc: false,
                    });
                }
            }
            add_access(cell, new, known);
        }
        if write && !atomic {
            self.end_release_sequences(obj, off, off.saturating_add(len));
        }
        race
    }

    /// A plain write to `obj`'s bytes `off..end` ends the release sequence of any
    /// atomic location there.
    fn end_release_sequences(&mut self, obj: ObjId, off: u32, end: u32) {
        if self.sync.range((obj, off)..(obj, end)).next().is_none() {
            return;
        }
        let ended: Vec<(ObjId, u32)> = self
            .sync
            .range((obj, off)..(obj, end))
            .map(|(&k, _)| k)
            .collect();
        for k in ended {
            self.sync.remove(&k);
        }
    }

    /// Whether `access` of these arguments, a plain access, would change nothing and
    /// find no race (the fast path of a thread reading a shared variable again, as a
    /// spin loop does): each byte is already reported, or its history ends with an
    /// equal access (same thread, epoch, kind and site; recording puts the new access
    /// last) and holds nothing the access would drop (known to it and no stronger) or
    /// race with. Then the race data need not be copied.
    #[allow(clippy::too_many_arguments)]
    pub fn access_changes_nothing(
        &self,
        tid: u32,
        obj: ObjId,
        off: u32,
        len: u32,
        write: bool,
        site: Option<u32>,
    ) -> bool {
        let Some(now) = self.now(tid) else {
            return false;
        };
        let end = off.saturating_add(len);
        if write && self.sync.range((obj, off)..(obj, end)).next().is_some() {
            return false;
        }
        let new = Access {
            tid,
            clock: now.get(tid),
            write,
            atomic: false,
            site,
        };
        let runs = self.shadow.get(&obj).map_or(&[][..], |s| s.runs());
        // The runs from the first that ends after `off`.
        let mut b = off;
        for r in &runs[runs.partition_point(|r| r.end <= off)..] {
            if b >= end {
                break;
            }
            // A byte without a run has no history: the access would add one.
            if r.start > b {
                return false;
            }
            // A raced run is no longer tracked: nothing changes there.
            if !r.raced {
                let Some((last, others)) = r.cell.split_last() else {
                    return false;
                };
                // Another access is kept only by a read (`add_access`): a write it
                // knows, or a read it does not know (no race: neither writes).
                let unchanged = *last == new
                    && others
                        .iter()
                        .all(|a| !write && (a.write == known_to(tid, now, a)));
                if !unchanged {
                    return false;
                }
            }
            b = r.end;
        }
        b >= end
    }

    /// Whether recording an access of this kind by `tid` to the object `obj` that no
    /// other thread can reach would change nothing (the fast path of private memory):
    /// an access of the same thread at the same epoch already stands for it.
    pub fn private_covered(&self, tid: u32, obj: ObjId, write: bool, atomic: bool) -> bool {
        let Some(cell) = self.pending.get(&obj) else {
            return false;
        };
        let Some(now) = self.now(tid) else {
            return false;
        };
        let clock = now.get(tid);
        cell.iter().any(|a| {
            a.tid == tid && a.clock == clock && (a.write || !write) && (!a.atomic || atomic)
        })
    }

    /// Thread `tid` accesses `len` bytes at `off` of `obj`, which no other thread can
    /// reach yet: kept object-wide until it is shared (see the module documentation).
    /// Nothing can race with it yet.
    #[allow(clippy::too_many_arguments)]
    pub fn access_private(
        &mut self,
        tid: u32,
        obj: ObjId,
        off: u32,
        len: u32,
        write: bool,
        atomic: bool,
        site: Option<u32>,
    ) {
        let new = self.stamp(tid, write, atomic, site);
        let RaceState {
            threads, pending, ..
        } = self;
        let now = &threads[tid as usize].now;
        let known = |a: &Access| known_to(tid, now, a);
        add_access(pending.or_default(obj), new, known);
        if write && !atomic {
            self.end_release_sequences(obj, off, off.saturating_add(len));
        }
    }

    /// Object `obj` (of `size` bytes) has just become reachable by other threads: each
    /// of its bytes gets the object-wide history it had while private (see the module
    /// documentation).
    pub fn publish(&mut self, obj: ObjId, size: u32) {
        let history = self.pending.remove(&obj);
        self.shadow.remove(&obj);
        if let Some(cell) = history.filter(|_| size > 0) {
            let mut shadow = Shadow::default();
            shadow.cover(0, size)[0].cell = cell;
            self.shadow.insert(obj, Arc::new(shadow));
        }
    }

    /// The bytes `off..off+len` of `obj` raced and were reported: stop tracking them.
    pub fn mark_raced(&mut self, obj: ObjId, off: u32, len: u32) {
        Arc::make_mut(self.shadow.or_default(obj)).mark_raced(off, off.saturating_add(len));
    }

    /// Whether anything is recorded for `obj`.
    pub fn tracks(&self, obj: ObjId) -> bool {
        self.shadow.contains_key(&obj)
            || self.pending.contains_key(&obj)
            || self.sync.range((obj, 0)..=(obj, u32::MAX)).next().is_some()
            || self
                .messages
                .range((obj, 0)..=(obj, u32::MAX))
                .next()
                .is_some()
    }

    /// Thread `tid` deallocates `obj` (free, delete, realloc's release, the end of the
    /// stack frame holding it): a plain write of every byte, so it races with each
    /// recorded access it does not know, atomic ones included; then the history goes.
    /// Returns the first such race (bytes already reported race no more).
    pub fn dealloc(&mut self, tid: u32, obj: ObjId, site: Option<u32>) -> Option<Race> {
        let new = self.stamp(tid, true, false, site);
        let race = self.now(tid).and_then(|now| {
            let unknown = |cell: &Cell| cell.iter().find(|a| !known_to(tid, now, a)).copied();
            let shared = self.shadow.get(&obj).and_then(|s| {
                s.runs()
                    .iter()
                    .filter(|run| !run.raced)
                    .find_map(|run| Some((run.start, unknown(&run.cell)?)))
            });
            // An object still private holds its own thread's accesses alone: never a
            // race, but nothing is lost by asking.
            let private = || self.pending.get(&obj).and_then(|c| Some((0, unknown(c)?)));
            shared.or_else(private).map(|(offset, first)| Race {
                obj,
                offset,
                first,
                second: new,
                dealloc: true,
            })
        });
        self.forget_object(obj);
        race
    }

    /// A released or dead object: its history goes (a later object may reuse the id).
    pub fn forget_object(&mut self, obj: ObjId) {
        self.shadow.remove(&obj);
        self.pending.remove(&obj);
        if self.sync.range((obj, 0)..=(obj, u32::MAX)).next().is_some() {
            self.sync.retain(|&(o, _), _| o != obj);
        }
        if self
            .messages
            .range((obj, 0)..=(obj, u32::MAX))
            .next()
            .is_some()
        {
            self.messages.retain(|&(o, _), _| o != obj);
        }
    }

    /// `tid` acquires what was released to `key` (lock, join, wake).
    pub fn acquire(&mut self, tid: u32, key: (ObjId, u32)) {
        let Some(c) = self.sync.get(&key) else {
            return;
        };
        if !self.now(tid).is_some_and(|now| now.covers(c)) {
            let c = c.clone();
            self.thread(tid).now.join(&c);
        }
    }

    /// `tid` releases its present to `key` (unlock, signal, barrier arrival).
    pub fn release(&mut self, tid: u32, key: (ObjId, u32)) {
        let now = self.thread(tid).now.clone();
        self.sync.or_default(key).join(&now);
        self.thread(tid).now.tick(tid);
    }

    /// An atomic load with order `order` (the access itself is recorded by `access`).
    pub fn atomic_load(&mut self, tid: u32, key: (ObjId, u32), order: MemOrder) {
        let Some(c) = self.sync.get(&key) else {
            return;
        };
        // A spin's loads mostly acquire what the thread already knows: leave its
        // clocks shared then (`thread` copies them).
        let known = self.threads.get(tid as usize).is_some_and(|t| {
            if order.acquires() {
                t.now.covers(c)
            } else {
                t.acquired_relaxed.covers(c)
            }
        });
        if known {
            return;
        }
        let c = c.clone();
        let t = self.thread(tid);
        if order.acquires() {
            t.now.join(&c);
        } else {
            t.acquired_relaxed.join(&c);
        }
    }

    /// An atomic store: a release store heads a new release sequence; a relaxed one
    /// ends the old one, publishing only what an earlier release fence covers.
    pub fn atomic_store(&mut self, tid: u32, key: (ObjId, u32), order: MemOrder) {
        let t = self.thread(tid);
        let published = if order.releases() {
            let c = t.now.clone();
            t.now.tick(tid);
            Some(c)
        } else {
            t.fence_release.clone()
        };
        match published {
            Some(c) => {
                self.sync.insert(key, c);
            }
            None => {
                self.sync.remove(&key);
            }
        }
    }

    /// A read-modify-write (or a successful compare-exchange): it reads the release
    /// sequence it continues, and adds its own release.
    pub fn atomic_rmw(&mut self, tid: u32, key: (ObjId, u32), order: MemOrder) {
        self.atomic_load(tid, key, order);
        let t = self.thread(tid);
        let published = if order.releases() {
            let c = t.now.clone();
            t.now.tick(tid);
            Some(c)
        } else {
            t.fence_release.clone()
        };
        if let Some(c) = published {
            self.sync.or_default(key).join(&c);
        }
    }

    pub fn fence(&mut self, tid: u32, order: MemOrder) {
        let t = self.thread(tid);
        if order.acquires() {
            let seen = std::mem::take(&mut t.acquired_relaxed);
            t.now.join(&seen);
            t.acquired_relaxed = seen;
        }
        if order.releases() {
            t.fence_release = Some(t.now.clone());
            t.now.tick(tid);
        }
    }

    /// `parent` created `child`: the child starts knowing all its creator did.
    pub fn spawn(&mut self, parent: u32, child: u32) {
        let mut c = self.thread(parent).now.clone();
        c.set(child, 1);
        self.thread(child).now = c;
        self.thread(parent).now.tick(parent);
    }

    /// `joiner` has seen `finished` end (join): it knows all the thread did.
    pub fn join_thread(&mut self, joiner: u32, finished: u32) {
        let c = self.thread(finished).now.clone();
        self.thread(joiner).now.join(&c);
    }

    /// Serialise canonically (see the module documentation). `map` renames an object to
    /// its canonical id (`None`: the state no longer reaches it); `running` says which
    /// threads can still act, `live` whose clock may still be used (running, or
    /// finished and still joinable).
    ///
    /// The data is written as several chunks, their ends pushed to `ends`: first the
    /// clocks, release clocks and object-wide histories, then one chunk per object with
    /// per-byte histories and raced bytes. An access changes one object's chunk, and the
    /// store keeps the others' chunk ids (tree compression shares them between states).
    #[allow(clippy::too_many_arguments)]
    pub fn serialize(
        &self,
        map: &dyn Fn(ObjId) -> Option<u32>,
        heap: &dyn Fn(ObjId) -> bool,
        running: &dyn Fn(u32) -> bool,
        live: &dyn Fn(u32) -> bool,
        out: &mut Vec<u8>,
        ends: &mut Vec<usize>,
    ) {
        let n = self.threads.len();
        let runs_now: SmallVec<[bool; 8]> = (0..n as u32).map(running).collect();
        let relevance = Relevance::new(self, &runs_now);
        // (thread, epoch) of every recorded access that may still race, sorted.
        let mut epochs: SmallVec<[(u32, u32); 32]> = SmallVec::new();
        // Filled in place: returned, it would be copied (this runs for every state).
        let mut objects: SmallVec<[(u32, &Shadow, bool, bool); 8]> = SmallVec::new();
        self.objects_to_write(map, heap, &relevance, &mut epochs, &mut objects);
        let pending = self.pending_to_write(map, &relevance, &mut epochs);
        epochs.sort_unstable();
        epochs.dedup();
        let ranks = Ranks::new(&epochs, n);
        put_leb(out, n as u32);
        self.write_thread_clocks(&ranks, &runs_now, live, out);
        self.write_release_clocks(&ranks, map, out);
        self.write_message_clocks(&ranks, map, out);
        let history = History {
            relevance: &relevance,
            ranks: &ranks,
        };
        let mut keys = Keys::new();
        put_leb(out, pending.len() as u32);
        for (o, cell) in &pending {
            put_leb(out, *o);
            history.of(false, cell, &mut keys);
            put_keys(out, &keys);
        }
        put_leb(out, objects.iter().filter(|o| o.2).count() as u32);
        ends.push(out.len());
        for &(m, shadow, _, heap) in objects.iter().filter(|o| o.2) {
            put_leb(out, m);
            history.write_runs(shadow, heap, out);
            ends.push(out.len());
        }
    }

    /// The objects with per-byte data in canonical order, into `objects`: (canonical
    /// id, shadow, whether it has any to write, whether it is heap memory). It has some
    /// when a run is raced or holds an access that may still race; the (thread, epoch)
    /// of those accesses go to `epochs`.
    #[inline]
    fn objects_to_write<'s>(
        &'s self,
        map: &dyn Fn(ObjId) -> Option<u32>,
        heap: &dyn Fn(ObjId) -> bool,
        relevance: &Relevance,
        epochs: &mut SmallVec<[(u32, u32); 32]>,
        objects: &mut SmallVec<[(u32, &'s Shadow, bool, bool); 8]>,
    ) {
        // (SmallVec's `extend` and `collect` cost more than these pushes: this runs
        // for every state.)
        for (&o, shadow) in self.shadow.iter() {
            let Some(m) = map(o) else { continue };
            let heap = relevance.limited && heap(o);
            let mut written = false;
            for run in shadow.runs() {
                written |= run.raced;
                for a in run.cell.iter() {
                    if relevance.relevant_in(heap, a) {
                        epochs.push((a.tid, a.clock));
                        written = true;
                    }
                }
            }
            objects.push((m, &**shadow, written, heap));
        }
        objects.sort_unstable_by_key(|o| o.0);
    }

    /// The object-wide histories holding an access that may still race, by canonical
    /// id; the (thread, epoch) of those accesses go to `epochs`.
    #[inline]
    fn pending_to_write<'s>(
        &'s self,
        map: &dyn Fn(ObjId) -> Option<u32>,
        relevance: &Relevance,
        epochs: &mut SmallVec<[(u32, u32); 32]>,
    ) -> SmallVec<[(u32, &'s Cell); 4]> {
        let mut pending: SmallVec<[(u32, &Cell); 4]> = SmallVec::new();
        for (&o, cell) in self.pending.iter() {
            if cell.iter().any(|a| relevance.relevant(a)) {
                if let Some(m) = map(o) {
                    pending.push((m, cell));
                    for a in cell.iter() {
                        if relevance.relevant(a) {
                            epochs.push((a.tid, a.clock));
                        }
                    }
                }
            }
        }
        pending.sort_unstable_by_key(|p| p.0);
        pending
    }

    /// Each thread's flags and clocks, or `THREAD_GONE`.
    #[inline]
    fn write_thread_clocks(
        &self,
        ranks: &Ranks,
        runs_now: &[bool],
        live: &dyn Fn(u32) -> bool,
        out: &mut Vec<u8>,
    ) {
        for (tid, t) in self.threads.iter().enumerate() {
            let tid = tid as u32;
            if !live(tid) {
                // Its clock can never be acquired again (joined, detached or stuck).
                out.push(THREAD_GONE);
                continue;
            }
            // A running thread's own component covers all its recorded epochs; whether
            // its next access shares the latest one's epoch (`private_covered`, and one
            // rank or two) is the one thing that count loses: a flag keeps it, so the
            // form can be decoded (`decode`).
            let latest = ranks.mine[tid as usize].last().map_or(0, |e| e.1);
            let fresh = runs_now[tid as usize] && t.now.get(tid) > latest;
            out.push(t.fence_release.is_some() as u8 | (fresh as u8) << 1);
            ranks.put_clock(out, &t.now);
            ranks.put_clock(out, &t.acquired_relaxed);
            if let Some(f) = &t.fence_release {
                ranks.put_clock(out, f);
            }
        }
    }

    /// The release clocks of reachable locations, by canonical (object, offset); one
    /// that covers no recorded access acquires nothing that matters and is left out.
    #[inline]
    fn write_release_clocks(
        &self,
        ranks: &Ranks,
        map: &dyn Fn(ObjId) -> Option<u32>,
        out: &mut Vec<u8>,
    ) {
        let mut sync: SmallVec<[(u32, u32, &VectorClock); 4]> = SmallVec::new();
        for (&(o, off), c) in self.sync.iter() {
            if !c.components().any(|(k, v)| ranks.cover(k, v) != 0) {
                continue;
            }
            if let Some(m) = if o == 0 { Some(0) } else { map(o) } {
                sync.push((m, off, c));
            }
        }
        sync.sort_unstable_by_key(|&(o, off, _)| (o, off));
        put_leb(out, sync.len() as u32);
        for (o, off, c) in &sync {
            put_leb(out, *o);
            put_leb(out, *off);
            ranks.put_clock(out, c);
        }
    }
    /// The message clocks of reachable locations (`messages.rs`), by canonical
    /// (object, offset): each list up to its last clock that covers a recorded access,
    /// a clock that covers none written as none (it acquires nothing that matters).
    #[inline]
    fn write_message_clocks(
        &self,
        ranks: &Ranks,
        map: &dyn Fn(ObjId) -> Option<u32>,
        out: &mut Vec<u8>,
    ) {
        let covers = |c: &Option<VectorClock>| {
            c.as_ref()
                .is_some_and(|c| c.components().any(|(k, v)| ranks.cover(k, v) != 0))
        };
        if self.messages.iter().next().is_none() {
            put_leb(out, 0);
            return;
        }
        let mut lists: Vec<(u32, u32, &[Option<VectorClock>])> = Vec::new();
        for (&(o, off), list) in self.messages.iter() {
            let len = list.iter().rposition(covers).map_or(0, |i| i + 1);
            if len == 0 {
                continue;
            }
            if let Some(m) = map(o) {
                lists.push((m, off, &list[..len]));
            }
        }
        lists.sort_unstable_by_key(|&(o, off, _)| (o, off));
        put_leb(out, lists.len() as u32);
        for (o, off, list) in &lists {
            put_leb(out, *o);
            put_leb(out, *off);
            put_leb(out, list.len() as u32);
            for c in list.iter() {
                match c.as_ref().filter(|_| covers(c)) {
                    Some(c) => {
                        out.push(1);
                        ranks.put_clock(out, c);
                    }
                    None => out.push(0),
                }
            }
        }
    }
}

/// Which recorded accesses still matter to a state (`RaceState::serialize`). An
/// access matters while some other running thread does not know it: while its epoch
/// is above the least that the other running threads know of its thread. A read of
/// heap memory matters while a running thread that may still write heap memory does
/// not know it.
struct Relevance {
    /// Per thread, the least of its epochs the other running threads know (u32::MAX
    /// when no other thread runs).
    known: SmallVec<[u32; 8]>,
    /// The same over the running threads that may still write heap memory
    /// (`RaceState::writers`); empty unless `limited`.
    known_by_writers: SmallVec<[u32; 8]>,
    /// Some running thread may not write heap memory: reads of heap memory follow
    /// their own rule.
    limited: bool,
}

impl Relevance {
    #[inline]
    fn new(race: &RaceState, runs_now: &[bool]) -> Relevance {
        let known = least_known(&race.threads, |u| runs_now[u]);
        let limited = race.writers != u64::MAX;
        let known_by_writers = if limited {
            least_known(&race.threads, |u| {
                runs_now[u] && (u >= 64 || race.writers & (1 << u) != 0)
            })
        } else {
            SmallVec::new()
        };
        Relevance {
            known,
            known_by_writers,
            limited,
        }
    }

    #[inline]
    fn relevant(&self, a: &Access) -> bool {
        self.known.get(a.tid as usize).is_some_and(|&k| a.clock > k)
    }

    /// Whether `a`, an access to heap memory when `heap`, matters.
    #[inline]
    fn relevant_in(&self, heap: bool, a: &Access) -> bool {
        if heap && !a.write {
            self.known_by_writers
                .get(a.tid as usize)
                .is_some_and(|&k| a.clock > k)
        } else {
            self.relevant(a)
        }
    }
}

/// Per thread, the least of its clock components among the threads `counts` keeps,
/// leaving each thread's own out (u32::MAX where no other thread counts).
#[inline]
fn least_known(
    threads: &[Arc<ThreadClocks>],
    counts: impl Fn(usize) -> bool,
) -> SmallVec<[u32; 8]> {
    let mut known: SmallVec<[u32; 8]> = smallvec::smallvec![u32::MAX; threads.len()];
    for (u, t) in threads.iter().enumerate() {
        if counts(u) {
            for (k, least) in known.iter_mut().enumerate() {
                if k != u {
                    *least = (*least).min(t.now.get(k as u32));
                }
            }
        }
    }
    known
}

/// Each thread's recorded access epochs that may still race, sorted. A clock
/// component is written as how many of its thread's epochs it covers (see the module
/// documentation): all a clock value can ever decide.
struct Ranks<'e> {
    mine: SmallVec<[&'e [(u32, u32)]; 8]>,
}

impl<'e> Ranks<'e> {
    /// From `epochs`, sorted (every relevant access has a thread below `n`).
    #[inline]
    fn new(epochs: &'e [(u32, u32)], n: usize) -> Ranks<'e> {
        // Built where it is returned (a local moved in would be copied).
        let mut ranks = Ranks {
            mine: smallvec::smallvec![&[][..]; n],
        };
        let mut rest = epochs;
        while let Some(&(t, _)) = rest.first() {
            let len = rest.iter().take_while(|e| e.0 == t).count();
            ranks.mine[t as usize] = &rest[..len];
            rest = &rest[len..];
        }
        ranks
    }

    #[inline]
    fn cover(&self, k: u32, v: u32) -> u32 {
        self.mine.get(k as usize).map_or(0, |m| covered(m, v))
    }

    /// The count first (patched once known), then the components that cover any.
    // `always`, like `History::of`, `put_keys` and `put_run`: they run several times
    // for every stored state, and left as calls they cost about 1% of a whole check.
    #[inline(always)]
    fn put_clock(&self, out: &mut Vec<u8>, c: &VectorClock) {
        let at = out.len();
        out.push(0);
        let mut count = 0u32;
        for (k, (&v, m)) in c.as_slice().iter().zip(&self.mine).enumerate() {
            let c = covered(m, v);
            if c != 0 {
                put_leb(out, k as u32);
                put_leb(out, c);
                count += 1;
            }
        }
        patch_count(out, at, count);
    }
}

/// Histories as the state sees them.
struct History<'a, 'e> {
    relevance: &'a Relevance,
    ranks: &'a Ranks<'e>,
}

impl History<'_, '_> {
    /// A cell's history: (thread, covered count, kind) of its relevant accesses,
    /// sorted, into `keys`.
    #[inline(always)]
    fn of(&self, heap: bool, cell: &Cell, keys: &mut Keys) {
        keys.clear();
        for a in cell.iter() {
            if self.relevance.relevant_in(heap, a) {
                let kind = a.write as u8 | (a.atomic as u8) << 1;
                keys.push((a.tid, self.ranks.cover(a.tid, a.clock), kind));
            }
        }
        if keys.len() > 1 {
            keys.sort_unstable();
        }
    }

    /// One object's per-byte data: maximal runs of consecutive bytes with the same
    /// history as the state sees it (a variable written or read whole) are one entry:
    /// (first byte, length, history); a raced run has an empty one (a written history
    /// never is). Maximal runs keep the form canonical.
    #[inline]
    fn write_runs(&self, shadow: &Shadow, heap: bool, out: &mut Vec<u8>) {
        let (mut keys, mut next) = (Keys::new(), Keys::new());
        let at = out.len();
        out.push(0);
        let mut runs = 0u32;
        // The entry being extended: its bytes, its history in `keys`.
        let mut open: Option<(u32, u32)> = None;
        for run in shadow.runs() {
            if run.raced {
                next.clear();
            } else {
                self.of(heap, &run.cell, &mut next);
                if next.is_empty() {
                    continue;
                }
            }
            match &mut open {
                Some((_, end)) if *end == run.start && next == keys => *end = run.end,
                _ => {
                    if let Some((start, end)) = open {
                        put_run(out, start, end, &keys);
                        runs += 1;
                    }
                    open = Some((run.start, run.end));
                    std::mem::swap(&mut keys, &mut next);
                }
            }
        }
        if let Some((start, end)) = open {
            put_run(out, start, end, &keys);
            runs += 1;
        }
        patch_count(out, at, runs);
    }
}

#[inline(always)]
fn put_keys(out: &mut Vec<u8>, keys: &[(u32, u32, u8)]) {
    put_leb(out, keys.len() as u32);
    for &(tid, r, kind) in keys {
        put_leb(out, tid);
        put_leb(out, r);
        out.push(kind);
    }
}

#[inline(always)]
fn put_run(out: &mut Vec<u8>, start: u32, end: u32, keys: &[(u32, u32, u8)]) {
    put_leb(out, start);
    put_leb(out, end - start);
    put_keys(out, keys);
}

/// How many of one thread's recorded epochs (sorted) the clock value `v` covers. A
/// thread usually has a few: counting them is cheaper than a search.
#[inline]
fn covered(epochs: &[(u32, u32)], v: u32) -> u32 {
    if epochs.len() <= 8 {
        epochs.iter().take_while(|e| e.1 <= v).count() as u32
    } else {
        epochs.partition_point(|e| e.1 <= v) as u32
    }
}

/// Numbers are small (threads, counts, offsets): LEB128, a canonical encoding.
#[inline]
fn put_leb(out: &mut Vec<u8>, mut x: u32) {
    while x >= 0x80 {
        out.push(x as u8 | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// Write `count` as LEB128 over the one byte reserved for it at `at` (a count known
/// only after what it counts was written), widening it in the rare case it needs more.
#[inline]
fn patch_count(out: &mut Vec<u8>, at: usize, count: u32) {
    if count < 0x80 {
        out[at] = count as u8;
    } else {
        widen_count(out, at, count);
    }
}

#[cold]
fn widen_count(out: &mut Vec<u8>, at: usize, count: u32) {
    {
        let mut leb: SmallVec<[u8; 5]> = SmallVec::new();
        let mut x = count;
        while x >= 0x80 {
            leb.push(x as u8 | 0x80);
            x >>= 7;
        }
        leb.push(x as u8);
        out.splice(at..at + 1, leb);
    }
}

impl RaceState {
    /// The race data serialised as `bytes` (the inverse of `serialize`, objects in
    /// their canonical numbering). It is not the state that was serialised but an
    /// equivalent one: each clock component and access epoch is its rank among the
    /// recorded epochs of its thread (a running thread's own component one more when
    /// its next access starts a new epoch), which keeps every comparison that decides
    /// races, so it serialises to the same bytes and steps to the same successors. The
    /// accesses every running thread knows are gone (they can never race), and so are
    /// the sites of accesses (not state: a report names them).
    pub(crate) fn decode(chunks: &[&[u8]]) -> Option<RaceState> {
        let (header, objects_chunks) = chunks.split_first()?;
        let mut r = Reader::new(header);
        let leb = |r: &mut Reader<'_>| u32::try_from(r.len()?).ok();
        let clock = |r: &mut Reader<'_>| {
            let mut c = VectorClock::default();
            for _ in 0..leb(r)? {
                let k = leb(r)?;
                c.set(k, leb(r)?);
            }
            Some(c)
        };
        let mut st = RaceState {
            threads: Arc::default(),
            sync: SortedMap::default(),
            messages: SortedMap::default(),
            shadow: SortedMap::default(),
            pending: SortedMap::default(),
            rebuilt: true,
            writers: u64::MAX,
        };
        let mut threads = Vec::new();
        for tid in 0..leb(&mut r)? {
            let tag = r.u8()?;
            if tag == THREAD_GONE {
                threads.push(Arc::default());
                continue;
            }
            let mut now = clock(&mut r)?;
            if tag & 2 != 0 {
                now.tick(tid);
            }
            let acquired_relaxed = clock(&mut r)?;
            let fence_release = if tag & 1 != 0 {
                Some(clock(&mut r)?)
            } else {
                None
            };
            threads.push(Arc::new(ThreadClocks {
                now,
                fence_release,
                acquired_relaxed,
            }));
        }
        st.threads = Arc::new(threads);
        let mut sync = Vec::new();
        for _ in 0..leb(&mut r)? {
            let key = (leb(&mut r)?, leb(&mut r)?);
            sync.push((key, clock(&mut r)?));
        }
        let mut messages = Vec::new();
        for _ in 0..leb(&mut r)? {
            let key = (leb(&mut r)?, leb(&mut r)?);
            let mut list = Vec::new();
            for _ in 0..leb(&mut r)? {
                list.push(match r.u8()? {
                    0 => None,
                    1 => Some(clock(&mut r)?),
                    _ => return None,
                });
            }
            messages.push((key, list));
        }
        let cell = |r: &mut Reader<'_>| {
            let mut cell = Cell::new();
            for _ in 0..leb(r)? {
                let (tid, clock, kind) = (leb(r)?, leb(r)?, r.u8()?);
                cell.push(Access {
                    tid,
                    clock,
                    write: kind & 1 != 0,
                    atomic: kind & 2 != 0,
                    site: None,
                });
            }
            Some(cell)
        };
        let mut pending = Vec::new();
        for _ in 0..leb(&mut r)? {
            let o = leb(&mut r)?;
            pending.push((o, cell(&mut r)?));
        }
        if leb(&mut r)? as usize != objects_chunks.len() || !r.done() {
            return None;
        }
        let mut objects: Vec<(ObjId, Arc<Shadow>)> = Vec::new();
        for chunk in objects_chunks {
            let mut r = Reader::new(chunk);
            let o = leb(&mut r)?;
            let mut runs = Vec::new();
            for _ in 0..leb(&mut r)? {
                let (start, len) = (leb(&mut r)?, leb(&mut r)?);
                let end = start.checked_add(len)?;
                // An empty history is a raced run (a written history never is empty).
                let cell = cell(&mut r)?;
                runs.push(Run {
                    start,
                    end,
                    raced: cell.is_empty(),
                    cell,
                });
            }
            if !r.done() {
                return None;
            }
            objects.push((o, Arc::new(Shadow::from_runs(runs)?)));
        }
        // Every list was written sorted and without repeats; other bytes are no state.
        fn sorted<K: Ord + Copy, V>(v: Vec<(K, V)>) -> Option<SortedMap<K, V>> {
            v.windows(2)
                .all(|w| w[0].0 < w[1].0)
                .then(|| SortedMap::from_sorted(v))
        }
        st.sync = sorted(sync)?;
        st.messages = sorted(messages)?;
        st.pending = sorted(pending)?;
        st.shadow = sorted(objects)?;
        Some(st)
    }
}

/// Add `new` to `cell`, dropping the accesses it makes redundant: those `known` to it
/// (they happen-before it) that every later access racing with them would race with
/// it too (it writes or they read, and it is not atomic or they are).
/// Whether `tid`, whose clock is `now`, has seen an access: its own, or one its clock
/// covers (happens-before).
fn known_to(tid: u32, now: &VectorClock, a: &Access) -> bool {
    a.tid == tid || a.clock <= now.get(a.tid)
}

fn add_access(cell: &mut Cell, new: Access, known: impl Fn(&Access) -> bool) {
    cell.retain(|a| !(known(a) && (new.write || !a.write) && (!new.atomic || a.atomic)));
    cell.push(new);
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(in crate::race) fn some_access() -> Access {
        Access {
            tid: 1,
            clock: 1,
            write: true,
            atomic: false,
            site: None,
        }
    }

    /// The serialised chunks.
    pub(in crate::race) fn key(r: &RaceState) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut ends = Vec::new();
        r.serialize(
            &|o| Some(o),
            &|_| false,
            &|_| true,
            &|_| true,
            &mut out,
            &mut ends,
        );
        let mut start = 0;
        ends.iter()
            .map(|&end| {
                let chunk = out[start..end].to_vec();
                start = end;
                chunk
            })
            .collect()
    }

    #[test]
    fn a_heap_read_is_state_only_while_an_unaware_thread_may_write() {
        // Thread 1 reads object 5; thread 2 does not know it. Whether the read is part
        // of the state depends on whether thread 2 may still write (`writers`) and on
        // the object being a heap block: a global's writer is bounded by name.
        let serialised = |read: bool, writers: u64, heap: bool| {
            let mut r = RaceState::new();
            r.spawn(0, 1);
            r.spawn(0, 2);
            r.access(0, 5, 0, 4, true, false, None);
            if read {
                r.access(1, 5, 0, 4, false, false, None);
            }
            r.set_writers(writers);
            let (mut out, mut ends) = (Vec::new(), Vec::new());
            r.serialize(
                &|o| Some(o),
                &|_| heap,
                &|_| true,
                &|_| true,
                &mut out,
                &mut ends,
            );
            out
        };
        // Main does not know the read either: no writer, or thread 2 alone.
        let none = 0;
        let thread_2 = 0b100;
        assert_eq!(serialised(true, none, true), serialised(false, none, true));
        assert_ne!(
            serialised(true, thread_2, true),
            serialised(false, thread_2, true)
        );
        assert_ne!(
            serialised(true, none, false),
            serialised(false, none, false)
        );
        // Unknown writers (all ones, the default): the read stays.
        assert_ne!(
            serialised(true, u64::MAX, true),
            serialised(false, u64::MAX, true)
        );
    }

    #[test]
    fn covered_counts_the_epochs_a_clock_value_reaches() {
        // Short lists are counted, long ones searched: both give the naive count.
        for len in 0..20u32 {
            let epochs: Vec<(u32, u32)> = (0..len).map(|i| (1, 2 * i + 1)).collect();
            for v in 0..2 * len + 3 {
                let naive = epochs.iter().filter(|e| e.1 <= v).count() as u32;
                assert_eq!(covered(&epochs, v), naive, "{len} {v}");
            }
        }
    }

    #[test]
    fn unordered_plain_writes_race_and_a_lock_orders_them() {
        let mut r = RaceState::new();
        r.spawn(0, 1);
        r.spawn(0, 2);
        assert!(r.access(1, 5, 0, 4, true, false, None).is_none());
        let race = r.access(2, 5, 2, 1, false, false, None).expect("a race");
        assert_eq!((race.offset, race.first.tid, race.second.tid), (2, 1, 2));

        let mut r = RaceState::new();
        r.spawn(0, 1);
        r.spawn(0, 2);
        r.acquire(1, (9, 0));
        r.access(1, 5, 0, 4, true, false, None);
        r.release(1, (9, 0));
        r.acquire(2, (9, 0));
        assert!(r.access(2, 5, 0, 4, true, false, None).is_none());
    }

    #[test]
    fn an_access_said_to_change_nothing_changes_nothing() {
        // Thread 1 reads or writes a variable again after several histories, some of
        // its bytes already reported racing; whenever the fast path says nothing
        // changes, recording the access finds no race and leaves the data (histories in
        // order, with sites, and raced bytes) as it was.
        let mut said = [0usize; 2];
        for before in 0..64u32 {
            for (write, site) in [(false, Some(3)), (true, Some(3)), (false, Some(4))] {
                let mut r = RaceState::new();
                r.spawn(0, 1);
                r.spawn(0, 2);
                let step = |r: &mut RaceState, bit: u32, tid: u32, write: bool| {
                    if before & (1 << bit) != 0 {
                        r.access(tid, 5, 0, 4, write, false, Some(3));
                    }
                };
                step(&mut r, 0, 2, true);
                step(&mut r, 1, 2, false);
                r.release(2, (9, 0));
                r.acquire(1, (9, 0));
                step(&mut r, 2, 1, false);
                step(&mut r, 3, 1, true);
                if before & 16 != 0 {
                    r.mark_raced(5, 0, 2);
                }
                if before & 32 != 0 {
                    r.mark_raced(5, 2, 2);
                }
                let fast = r.access_changes_nothing(1, 5, 0, 4, write, site);
                let mut after = r.clone();
                let race = after.access(1, 5, 0, 4, write, false, site);
                let cells = |r: &RaceState| {
                    let shadow = r.shadow.get(&5).cloned().unwrap_or_default();
                    let mut bytes = Vec::new();
                    for run in shadow.runs() {
                        bytes
                            .extend((run.start..run.end).map(|b| (b, run.raced, run.cell.clone())));
                    }
                    bytes
                };
                if fast {
                    assert!(race.is_none(), "{before:#b} {write} {site:?}");
                    assert_eq!(cells(&after), cells(&r), "{before:#b} {write} {site:?}");
                    assert_eq!(key(&after), key(&r));
                }
                said[fast as usize] += 1;
            }
        }
        // Both answers occur: a repeated read of the same site, and accesses that add.
        assert!(said[0] > 0 && said[1] > 0, "{said:?}");
    }

    #[test]
    fn raced_bytes_are_part_of_the_state_and_survive_decoding() {
        // Two threads race on bytes 0..4 of object 5; the report marks them raced.
        let mut r = RaceState::new();
        r.spawn(0, 1);
        r.spawn(0, 2);
        r.access(1, 5, 0, 8, true, false, None);
        assert!(r.access(2, 5, 0, 4, false, false, None).is_some());
        r.mark_raced(5, 0, 4);
        // Without the mark the same accesses leave a different state.
        let mut unmarked = RaceState::new();
        unmarked.spawn(0, 1);
        unmarked.spawn(0, 2);
        unmarked.access(1, 5, 0, 8, true, false, None);
        unmarked.access(2, 5, 0, 4, false, false, None);
        assert_ne!(key(&r), key(&unmarked));
        let bytes = key(&r);
        let back =
            RaceState::decode(&bytes.iter().map(|c| &c[..]).collect::<Vec<_>>()).expect("decodes");
        assert_eq!(key(&back), bytes);
        for mut s in [r, back] {
            // The raced bytes are no longer tracked; the others still race.
            assert!(s.access_changes_nothing(1, 5, 0, 4, true, None));
            assert!(s.access(1, 5, 0, 4, true, false, None).is_none());
            assert!(s.access(2, 5, 2, 4, false, false, None).is_some());
        }
    }

    #[test]
    fn a_deallocation_is_a_write_of_the_whole_object() {
        // Thread 1 reads byte 6 (or writes it atomically); thread 2 frees the object,
        // with or without having acquired what thread 1 released after its access.
        for (atomic, ordered) in [(false, false), (true, false), (false, true), (true, true)] {
            let mut r = RaceState::new();
            r.spawn(0, 1);
            r.spawn(0, 2);
            r.access(1, 5, 6, 1, atomic, atomic, None);
            r.release(1, (9, 0));
            if ordered {
                r.acquire(2, (9, 0));
            }
            let race = r.dealloc(2, 5, None);
            assert_eq!(
                race.is_some(),
                !ordered,
                "atomic {atomic} ordered {ordered}"
            );
            if let Some(race) = race {
                assert_eq!((race.offset, race.first.tid, race.second.tid), (6, 1, 2));
                assert!(race.dealloc && race.second.write && !race.second.atomic);
            }
            // The history is gone: a later object with the same id starts clean.
            assert!(!r.tracks(5));
        }
        // Bytes already reported race no more.
        let mut r = RaceState::new();
        r.spawn(0, 1);
        r.spawn(0, 2);
        r.access(1, 5, 0, 4, false, false, None);
        r.mark_raced(5, 0, 4);
        assert!(r.dealloc(2, 5, None).is_none());
    }

    #[test]
    fn two_atomics_never_race_but_an_atomic_and_a_plain_access_do() {
        let mut r = RaceState::new();
        r.spawn(0, 1);
        r.spawn(0, 2);
        r.access(1, 5, 0, 4, true, true, None);
        assert!(r.access(2, 5, 0, 4, true, true, None).is_none());
        assert!(r.access(2, 5, 0, 4, false, false, None).is_some());
    }

    #[test]
    fn release_acquire_orders_but_relaxed_does_not_without_fences() {
        for (store, load, fences, racy) in [
            (MemOrder::Release, MemOrder::Acquire, false, false),
            (MemOrder::Relaxed, MemOrder::Acquire, false, true),
            (MemOrder::Relaxed, MemOrder::Relaxed, true, false),
            (MemOrder::Relaxed, MemOrder::Relaxed, false, true),
        ] {
            let mut r = RaceState::new();
            r.spawn(0, 1);
            r.spawn(0, 2);
            r.access(1, 5, 0, 4, true, false, None);
            if fences {
                r.fence(1, MemOrder::Release);
            }
            r.atomic_store(1, (6, 0), store);
            r.atomic_load(2, (6, 0), load);
            if fences {
                r.fence(2, MemOrder::Acquire);
            }
            assert_eq!(
                r.access(2, 5, 0, 4, false, false, None).is_some(),
                racy,
                "{store:?} {load:?} fences {fences}"
            );
        }
    }

    #[test]
    fn a_published_object_keeps_the_epochs_of_its_private_accesses() {
        // Thread 1 accesses a private object (7), then a release fence, then publishes
        // it; thread 2 has acquired the fence's clock when it accesses the object.
        let run = |before_fence: (bool, bool), after_fence: Option<bool>, reader_writes| {
            let mut r = RaceState::new();
            r.spawn(0, 1);
            r.spawn(0, 2);
            let (write, atomic) = before_fence;
            r.access_private(1, 7, 0, 4, write, atomic, None);
            r.fence(1, MemOrder::Release);
            if let Some(write) = after_fence {
                r.access_private(1, 7, 0, 4, write, false, None);
            }
            assert!(r.private_covered(1, 7, false, false) || after_fence.is_none());
            r.atomic_store(1, (6, 0), MemOrder::Relaxed);
            r.publish(7, 8);
            r.atomic_load(2, (6, 0), MemOrder::Relaxed);
            r.fence(2, MemOrder::Acquire);
            r.access(2, 7, 4, 4, reader_writes, false, None).is_some()
        };
        // Written before the fence: ordered for a reader and a writer.
        assert!(!run((true, false), None, false));
        assert!(!run((true, false), None, true));
        // Written after the fence: races with a read.
        assert!(run((true, false), Some(true), false));
        // Read after the fence: a later read does not race with it, a later write does.
        assert!(!run((true, false), Some(false), false));
        assert!(run((true, false), Some(false), true));
        // An atomic write before the fence: a plain write after acquiring is ordered.
        assert!(!run((true, true), None, true));
        // Never accessed while private: nothing to race with.
        let mut r = RaceState::new();
        r.spawn(0, 1);
        r.publish(7, 8);
        assert!(r.access(1, 7, 0, 8, true, false, None).is_none());
    }

    #[test]
    fn decoding_keeps_whether_the_next_access_starts_a_new_epoch() {
        // Thread 1 writes a private object, then (or not) releases a lock nobody
        // acquires: the count of epochs its clock covers is the same, but only after the
        // release does its next write start a new epoch (not covered, a second rank).
        for release in [false, true] {
            let mut r = RaceState::new();
            r.spawn(0, 1);
            r.access_private(1, 7, 0, 4, true, false, None);
            if release {
                r.release(1, (9, 0));
            }
            let bytes = key(&r);
            let back = RaceState::decode(&bytes.iter().map(|c| &c[..]).collect::<Vec<_>>())
                .expect("decodes");
            assert_eq!(key(&back), bytes, "release {release}");
            assert_eq!(
                back.private_covered(1, 7, true, false),
                r.private_covered(1, 7, true, false),
                "release {release}"
            );
            assert_eq!(r.private_covered(1, 7, true, false), !release);
            let (mut a, mut b) = (r.clone(), back);
            a.access_private(1, 7, 0, 4, false, false, None);
            b.access_private(1, 7, 0, 4, false, false, None);
            assert_eq!(key(&a), key(&b), "release {release}");
        }
    }

    #[test]
    fn the_serialised_form_keeps_only_which_clock_knows_which_access() {
        // The same history reached after a different number of lock round trips.
        let run = |rounds: usize| {
            let mut r = RaceState::new();
            r.spawn(0, 1);
            for _ in 0..rounds {
                r.acquire(1, (9, 0));
                r.release(1, (9, 0));
            }
            r.access(1, 5, 0, 1, true, false, None);
            r
        };
        assert_eq!(key(&run(1)), key(&run(4)));
        // But a different history is a different state.
        let mut other = run(1);
        other.access(0, 5, 0, 1, false, false, None);
        assert_ne!(key(&run(1)), key(&other));
    }
}
