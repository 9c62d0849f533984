//! Thread symmetry: a state is serialised with its threads in a canonical order, so
//! states that differ only in which thread is which are stored once.
//!
//! Soundness. Renaming threads by a permutation π maps the transition system onto
//! itself, as long as π renames *every* place a thread id lives: the thread list, the
//! atomic-section owner, the extension data (`ExtState::permute_threads`: the TSO
//! runtime's per-thread buffers and their ordering facts), the race data
//! (`race/permute.rs`: each thread's clocks move to its new index, every clock's
//! components and every recorded access's thread are renamed, and so is the mask of
//! threads that may still write heap memory), and the program's own memory.
//! A thread's `pthread_t` and a mutex's owner are pointers to the thread's handle
//! object (`Thread::handle`), so the object renaming that already makes states
//! canonical renames them with the threads. A state is serialised with π applied only
//! when nothing else holds a thread id: `renamable` refuses states in which a model
//! stored a thread number in memory (`State::thread_ids_in_memory`: condition
//! variable, rwlock and barrier masks, spin lock, once and static-guard owners). Then π
//! is the identity and the state is stored as it is. So two states share their bytes
//! only when one is the other with threads and objects renamed, which have the same
//! futures. Race reports name the threads of representatives: among interchangeable
//! threads, which one a report calls "thread 2" is one of them.
//!
//! **Handles kept in an array** (`pthread_t t[N]; for (i…) pthread_create(&t[i], 0,
//! worker, 0); … pthread_join(t[i], 0)`). Thread ids do live in memory here: `t[i]`
//! holds a pointer to a thread's handle object. The object renaming moves them with the
//! threads, so π applied to a state s puts in `t[i]` the handle of π(the thread `t[i]`
//! held), and the traversal serialises s and π(s) alike: threads that `main`'s objects
//! reach are numbered in the order it reaches them (`t[0]`'s first), free threads by
//! key. That is the whole of what renaming may merge, and for a program that starts
//! every thread into its array it merges nothing. Thread ids follow creation order and
//! creation follows slot order, so in every reachable state thread i+1's handle is in
//! `t[i]`: the orbit {π(s)} of a reachable state meets the reachable states in s alone.
//! The state where the workers of `t[0]` and `t[1]` trade progress ("`t[0]`'s at A,
//! `t[1]`'s at B" against "`t[0]`'s at B, `t[1]`'s at A") is no renaming of s, since
//! renaming threads and handles together keeps each slot's role; and it must stay apart:
//! `main` that joins `t[0]` and then reads a flag that only the first worker to run
//! sets fails in one and not the other (`tests/engine_symmetry.rs`
//! `handle_order_that_matters_is_kept`, and with interchangeable helpers beside them,
//! `join_order_error_is_kept_beside_interchangeable_threads`, where symmetry is on:
//! a canonical form that did not tie each worker to the slot holding its handle could
//! merge the two and lose the failure). So
//! [`handles_pin_every_thread`] turns symmetry off for such a program: it stores the
//! same states and saves the symmetric traversal's cost.
//!
//! **Joining the array in another order.** Merging the two states above takes more
//! than a renaming: a normalisation N applied before the traversal, sorting the
//! contents of the array's *permutable* slots (handles of threads not yet joined that
//! no register of `main` holds) by their threads' keys (`Keys`, ties in place), so that
//! the traversal numbers the threads in key order. s and N(s) are then no renamings of
//! each other but must be *equivalent*: `main` joins the remaining threads in another
//! order, and that must change no verdict. The condition first proposed for it (every
//! use of the array is `&t[i]` given to `pthread_create` or a load of `t[i]` whose
//! value only goes to `pthread_join(…, 0)`, result unused; nothing visible in `main`
//! between its first join and its last) does not give that. Three counterexamples, each
//! a test in `tests/engine_symmetry.rs`, each losing its failure under one of the two
//! orders the keys can give its two workers (with the workers' roles fixed by their
//! argument instead, one arrangement fails and the other passes):
//! - A slot `main` never joins (`a_slot_main_never_joins_keeps_its_failure`): `main`
//!   waits until both workers took a ticket, joins `t[0]` alone, and asserts a flag
//!   only the other worker sets, or hangs when `t[0]`'s worker is the one that spins.
//! - A slot joined twice (`a_slot_joined_twice_keeps_its_failure`): the second join of
//!   `t[0]` is a misuse once its worker finished; under `--allow-nontermination` a
//!   spinning `t[0]` worker makes `main` wait without an error, so only the arrangement
//!   with the finisher in `t[0]` fails.
//! - `main` holding what a worker waits for
//!   (`the_thread_main_waits_for_first_keeps_its_deadlock`): every slot joined once in
//!   a loop, nothing between the joins, but `main` holds a mutex across them, the first
//!   ticket's worker blocks on it and the other spins forever. Joining the locker first
//!   closes a wait cycle (`deadlock`); joining the spinner first leaves `main` behind a
//!   loop (`non-terminating`; under `--allow-nontermination`, a pass). The wait-for
//!   analysis (`explore/deadlock.rs`) follows the edge of the join `main` is in.
//!
//! A condition that does give it adds: (1) `main` joins each of the array's n slots
//! exactly once in a fixed order (a loop whose private index goes from 0 to n by 1, or
//! straight-line joins of distinct constant slots), which needs an induction analysis
//! of the index at -O0 and of its phi above; (2) nothing else joins, detaches or
//! cancels a thread (`pthread_join` called nowhere else and its address not taken, no
//! `pthread_detach`, `pthread_cancel`, `thrd_*`); (3) N acts only once all n slots hold
//! distinct threads' handles (joining an unfilled slot fails at its position); (4) no
//! thread can wait on `main` while it joins: its handle is in no object (a mutex,
//! rwlock or spin lock owner) and `State::thread_ids_in_memory` is unset; (5) the
//! extension data points nowhere into the array (`ExtState::for_each_pointer`: a C11
//! history of the slots' writes would not move with their contents). Not for
//! soundness but for what it costs: (6) every `pthread_create` into the array gets the
//! same constant attributes, routine and argument (any argument when the routine cannot
//! read it, `ignores_its_argument`). Workers told apart from their start
//! (by `i`, by `&ids[i]`) never become renamings of each other, so sorting their slots
//! merges little and multiplies the states in which `main` waits on one or another of
//! them (N is no congruence, below): on generated programs whose workers got
//! `&ids[i]`, up to 1.8 times the states without the rule. Under these, s
//! and N(s) reach the same errors, deadlocks, hangs and outcomes: the workers cannot
//! see the array; `main`'s steps in the join region only wait, and postponing them to
//! the point where every remaining thread has finished gives the same state after the
//! region (all joined, the same clock); `main` being on no wait cycle, the thread it is
//! blocked on decides no wait-for verdict. For the hang check on the explored graph of
//! normal forms, a state that reaches an end in the program and not in that graph, with
//! the least (steps outside `main`'s joins, unjoined slots) to an end, has a successor
//! whose normal form is another such state with less: so there is none.
//!
//! What the search needs beyond that: (a) N is no congruence: `main`'s transition that
//! joins `t[k]` goes on to read `t[k+1]` (invisibly: no other thread reaches the
//! array), a slot N may have permuted, so from s and N(s) it leads to states that
//! differ in which thread `main` holds, which N keeps apart. Sleep sets assume the
//! congruence (a sleeping thread's move is covered from a sibling), and the hang check,
//! re-running the sleepers of a candidate, looks their successors up in the store
//! (`explore/liveness.rs`): with sleep sets on, `mcs4.c` stopped inconclusive on one
//! never stored. The moves the hang check runs again (sleepers, and the trace into a
//! hang and around its cycle) sort their successors' slots as the search does before
//! the lookup (`join_array_hang_check_finds_the_successors_it_runs_again`). So a search that applies N runs without sleep sets (every move of a
//! normal form is then in the graph, as the argument for the hang check needs; on
//! `mcs4.c`, 3 % more transitions). What they would save is small: a sleeping thread
//! is still run, only its successor is not stored (`explore/sleep.rs`), so on
//! `mcs4.c` at most the storing of those 3 % of transitions, against the footprints
//! every transition records (`bench/PERFORMANCE.md`, "Fewer instructions per
//! transition"). (b) A path over normal forms is not a run:
//! `explore/symmetric_path.rs` undoes renamings only, so a failure is searched again
//! with N off (`explore::search_with`'s breadth-first search for a shortest
//! counterexample, which then runs also with `-j` > 1), and a limit that stops that
//! second search makes the run inconclusive rather than leave a path that is no run.
//!
//! **On by default** (`MachineOptions::join_slots`; off: `--no-join-symmetry`, or
//! `--no-symmetry`): [`JoinArray::find`] checks (1), (2) and (6) on the one shape clang
//! gives `for (int i = 0; i < N; i++) pthread_join(t[i], 0);` at -O0 and with
//! optimisation (the loop rotated, its index a phi; fully unrolled joins, as -O2 writes
//! them for a small array, are not recognised: no rule), and
//! [`JoinArray::normalise`] checks (3) to (5) in each successor before it is stored
//! (`explore/expand.rs`, which numbers a successor whose slots moved afresh, without
//! the incremental check: `main` reaches its workers in another order than in the
//! parent, and on `mcs4.c` the check passed on none of those successors; `explore/held.rs` when it rebuilds a state by its path;
//! `explore/liveness.rs` when the hang check runs a move again). The array's threads
//! are then listed as one group (`-v`). Tested by the three counterexamples with it on
//! (the third, its loop forwards, passes wrongly without (4)), by programs where it
//! merges, fails in a worker (the counterexample replays), deadlocks or hangs in the
//! join loop, or meets a visible action between joins (`tests/engine_symmetry.rs`,
//! `join_array_*`), and against the search without it over the corpus at -O0 and over
//! generated programs that start workers into an array and join them, in the
//! recognised shape and in shapes it must refuse (`tests/tests/differential_symmetry.rs`,
//! `tests/src/gen_join.rs`). Not for a caller that checks every stored state
//! (robustness): a sorted state need not be one the program reaches. Its cost: a state
//! costs more with the rule (no sleep sets, the keys per successor, an incremental base
//! lost whenever the array is sorted), and the instruction guard, which counts a fixed
//! number of states, was re-baselined for it; whole runs take far fewer instructions
//! (`mcs4.c`, `ticket4x2_acqrel.c`). A small program whose workers never become
//! renamings of each other (under SC, race tracking's clocks from their creation on
//! tell them apart) can store more states with it, since N is no congruence (above).
//! Figures: `bench/PERFORMANCE.md`, "Joining the array in another order".
//!
//! N sorts by whole keys (`Keys::compute`, which reads the objects a thread leads to
//! as well as the thread), but computes only those it needs: a thread's key starts
//! with bytes read off the thread alone (`key_prefix`: status, phase, depth, where its
//! outermost frame is), and two threads whose prefixes differ within the shorter one
//! are ordered by them exactly as by their whole keys. The order, and so every state
//! stored, is the same as with every key computed (the order matters: N is no
//! congruence, so another order of the same ties stores other states). On `mcs4.c`
//! this computes a fraction of the keys. Most successors are in order already (a
//! stable sort then moves nothing, which neighbouring pairs decide), and a successor
//! shares every thread but the one that moved with its parent and siblings, so
//! thread parts and whole keys are kept by the thread's `Arc` (`KeyCache`, with the
//! objects a whole key read), as are the objects `main`'s registers point to.
//!
//! Which threads are interchangeable is decided by the state alone: any two threads
//! other than `main` (thread 0, never moved) may trade places, since their whole state
//! (start routine, stack, registers) is part of what is compared. Threads started with
//! the same routine and equal arguments reach equal states; threads whose arguments
//! differ stay apart while the argument is live and may merge once it is dead, which is
//! sound for the same reason. π sorts the other threads by a key computed from each
//! thread alone that does not depend on object numbering (`Keys`), ties keeping their
//! current order: any deterministic choice is sound; a finer key merges more.

use super::canon::{for_each_reg, write_len, write_thread};
use crate::ir::Program;
use crate::memory::read_u64;
use crate::memory::{ObjId, Object};
use crate::state::{State, Thread, ThreadId};
use crate::value::ptr_parts;
use std::sync::Arc;

/// Objects a thread's sort key looks at, at most.
const DEEP: usize = 64;

/// Whether `entry` starts every thread with its handle written into an array on its
/// own stack (`pthread_t t[N]; ... pthread_create(&t[i], ...)` and nothing else starts
/// threads). Then every thread is reached through that array in creation order, which
/// no interleaving changes, so no two reachable states are renamings of each other (see
/// **Handles kept in an array** above): the traversal up to symmetry would find only
/// permutations that no other path produces, and renaming the race data for them is
/// pure cost. A search of such a program canonicalises without symmetry; that is
/// always sound, and here it stores the same states. A call this does not recognise
/// keeps symmetry on. So does a [`JoinArray`] when its rule is on (`check`).
pub(crate) fn handles_pin_every_thread(program: &Program, entry: &str) -> bool {
    use crate::ir::{Callee, Inst, Operand};
    let (Some(create), Some(entry)) = (program.function("pthread_create"), program.function(entry))
    else {
        return false;
    };
    if program.function("thrd_create").is_some() {
        return false;
    }
    let mut starts = 0;
    for (f, func) in program.functions.iter().enumerate() {
        let Some(body) = &func.body else { continue };
        let insts = || body.blocks.iter().flat_map(|b| b.insts.iter());
        // Registers holding an array slot on this frame or an address into one.
        let mut in_array = Vec::new();
        for i in insts() {
            match i {
                Inst::Alloca { dst, elem_size, .. } if *elem_size >= 16 => in_array.push(*dst),
                Inst::Gep {
                    dst,
                    base: Operand::Reg(r),
                    ..
                } if in_array.contains(r) => in_array.push(*dst),
                _ => {}
            }
        }
        for i in insts() {
            let Inst::Call {
                callee: Callee::Direct(c),
                args,
                ..
            } = i
            else {
                continue;
            };
            if *c != create {
                continue;
            }
            match args.first() {
                Some(Operand::Reg(r)) if f as u32 == entry && in_array.contains(r) => starts += 1,
                _ => return false,
            }
        }
    }
    starts > 0
}

/// Whether the state's thread ids can all be renamed (see the module documentation).
pub(crate) fn renamable(st: &State) -> bool {
    st.threads.len() > 2 && !st.thread_ids_in_memory
}

/// Scratch for the sort keys of threads, reused across states.
#[derive(Default, Clone)]
pub(crate) struct Keys {
    bytes: Vec<u8>,
    /// (start, end) of each thread's key in `bytes`.
    spans: Vec<(usize, usize)>,
    /// The objects each thread's key read the contents of (`reads[read_spans[t]]`):
    /// a change to another object leaves the key as it is (`canon.rs`, incremental
    /// canonicalisation).
    reads: Vec<ObjId>,
    read_spans: Vec<(usize, usize)>,
    /// Renames globals to themselves and every other object to "unknown".
    blind: Vec<u32>,
    /// The objects one thread's key looks at (reused: keys are sorted for most states).
    seen: Vec<ObjId>,
    /// Scratch of `JoinArray::normalise`: the array's handles, their threads, the
    /// permutable slots with their threads, and those threads ranked.
    handles: Vec<u64>,
    tids: Vec<ThreadId>,
    held: Vec<ObjId>,
    /// The `main` whose registers `held` was gathered from.
    held_by: Option<Arc<Thread>>,
    order: Vec<(usize, ThreadId)>,
    prefix: Vec<u8>,
    /// (thread, the span of its known bytes in `prefix`, 0: `key_prefix`, 1: thread
    /// part, 2: whole key, in `bytes`).
    ranked: Vec<(ThreadId, usize, usize, u8)>,
    /// The thread parts and whole keys `sort_slots` computed, by thread.
    cache: KeyCache,
}

/// log2 of the number of entries of a [`KeyCache`] (direct-mapped by address).
const CACHE_BITS: u32 = 8;

/// The thread parts and whole keys [`Keys::sort_slots`] computed, by the thread (its
/// `Arc`) they are of. A successor shares every thread but the one that moved with its
/// parent and its siblings, so `JoinArray::normalise` asks again for most keys it
/// computed for the state before. Exact as `reuse.rs`'s cache is: an entry holds a
/// clone of the thread's `Arc`, and of each object its whole key read, so
/// `Arc::make_mut` copies before any change and the same pointer always means the
/// same contents. A thread part (`write_thread` with globals named and every other
/// object blinded) is a function of the thread, `all_registers` and the number of
/// globals; a whole key (`Keys::compute`) of those and of the contents of the objects
/// it read (which objects it goes on to is read off the thread and those contents),
/// so it is used only while each of them is still the same `Arc` in its slot, or
/// still no object. Never cloned: a clone of `Keys` starts with an empty cache.
#[derive(Default)]
struct KeyCache {
    entries: Vec<Option<KeyEntry>>,
}

impl Clone for KeyCache {
    fn clone(&self) -> Self {
        KeyCache::default()
    }
}

/// The objects a whole key read: each id with what its slot held then.
type ObjectsRead = Vec<(ObjId, Option<Arc<Object>>)>;

struct KeyEntry {
    thread: Arc<Thread>,
    all_registers: bool,
    globals: u32,
    /// The thread part.
    part: Vec<u8>,
    /// The whole key and the objects it read (id, what its slot held), when computed.
    whole: Option<(Vec<u8>, ObjectsRead)>,
}

impl KeyCache {
    fn slot_of(t: &Arc<Thread>) -> usize {
        super::reuse::arc_slot(t, CACHE_BITS)
    }

    /// The entry of `t` (its `Arc`) computed with these options, if cached.
    fn get(&mut self, t: &Arc<Thread>, all_registers: bool, globals: u32) -> Option<&mut KeyEntry> {
        self.entries
            .get_mut(Self::slot_of(t))?
            .as_mut()
            .filter(|e| {
                Arc::ptr_eq(&e.thread, t)
                    && e.all_registers == all_registers
                    && e.globals == globals
            })
    }

    /// Make `part` the thread part of `t`, replacing what its slot held.
    fn insert(&mut self, t: &Arc<Thread>, all_registers: bool, globals: u32, part: &[u8]) {
        if self.entries.is_empty() {
            self.entries.resize_with(1 << CACHE_BITS, || None);
        }
        match &mut self.entries[Self::slot_of(t)] {
            Some(e) => {
                e.thread = t.clone();
                e.all_registers = all_registers;
                e.globals = globals;
                e.part.clear();
                e.part.extend_from_slice(part);
                e.whole = None;
            }
            empty => {
                *empty = Some(KeyEntry {
                    thread: t.clone(),
                    all_registers,
                    globals,
                    part: part.to_vec(),
                    whole: None,
                })
            }
        }
    }
}

impl KeyEntry {
    /// The whole key, if computed and every object it read is still in `st` as it was.
    fn whole_in(&self, st: &State) -> Option<&(Vec<u8>, ObjectsRead)> {
        let whole = self.whole.as_ref()?;
        let same = whole
            .1
            .iter()
            .all(|(id, was)| match (st.memory.get_arc(*id), was) {
                (Some(now), Some(was)) => Arc::ptr_eq(now, was),
                (None, None) => true,
                _ => false,
            });
        same.then_some(whole)
    }
}

/// The first bytes of thread `t`'s key (`Keys::compute`, which starts with
/// `write_thread`), read off the thread without looking at its registers or memory:
/// status, phase, flags, the tags of its pending values, its depth and where its
/// outermost frame is (stopping early where `write_thread` writes a value). Two
/// threads whose prefixes differ within the shorter one are ordered by it as by their
/// whole keys; only the others need their whole keys.
fn key_prefix(b: &mut Vec<u8>, t: &crate::state::Thread) {
    use crate::state::ThreadStatus;
    match t.status {
        ThreadStatus::Running => b.push(0),
        ThreadStatus::Finished(_) => return b.push(1),
        ThreadStatus::Stuck => b.push(2),
    }
    b.extend_from_slice(&t.phase.to_le_bytes());
    b.push(t.detached as u8 | (t.joined as u8) << 1);
    if t.callback_result.is_some() {
        return b.push(1);
    }
    b.push(0);
    if t.pending_exit.is_some() {
        return b.push(1);
    }
    b.push(0);
    write_len(b, t.frames.len());
    if let Some(f) = t.frames.first() {
        b.extend_from_slice(&f.func.to_le_bytes());
        b.extend_from_slice(&f.block.to_le_bytes());
        b.extend_from_slice(&f.ip.to_le_bytes());
    }
}

/// The bytes of a thread's key `Keys::sort_slots` knows so far (`r`: thread, span in
/// `prefix`, level): each level's are a prefix of the next one's.
fn known<'a>(keys: &'a Keys, prefix: &'a [u8], r: &(ThreadId, usize, usize, u8)) -> &'a [u8] {
    if r.3 == 2 {
        keys.key(r.0)
    } else {
        &prefix[r.1..r.2]
    }
}

impl Keys {
    /// Forget the keys computed so far; ready for the keys of `st`'s threads.
    pub(crate) fn begin(&mut self, st: &State) {
        self.blind_globals(st);
        self.bytes.clear();
        self.spans.clear();
        self.spans.resize(st.threads.len(), (0, 0));
        self.reads.clear();
        self.read_spans.clear();
        self.read_spans.resize(st.threads.len(), (0, 0));
    }

    /// `blind` for `st`'s globals.
    fn blind_globals(&mut self, st: &State) {
        let globals = st.memory.globals as usize;
        if self.blind.len() != globals + 1 {
            self.blind.clear();
            self.blind.extend(0..=globals as u32);
        }
    }

    /// Sort `threads` by key (ties keep their order).
    pub(crate) fn sort(
        &mut self,
        program: &Program,
        st: &State,
        all_registers: bool,
        threads: &mut [ThreadId],
    ) {
        self.begin(st);
        for &tid in threads.iter() {
            self.compute(program, st, all_registers, tid);
        }
        let (bytes, spans) = (&self.bytes, &self.spans);
        threads.sort_by(|&a, &b| {
            let key = |t: ThreadId| {
                let (s, e) = spans[t as usize];
                &bytes[s..e]
            };
            key(a).cmp(key(b))
        });
    }

    /// Sort the threads of `order` (pairs of a slot and its thread, slots ascending)
    /// among its slots by key, ties in place, computing no more of each key than it
    /// takes to tell it from the others': its `key_prefix`, then its thread part
    /// (`write_thread`), then the whole key. Whether any thread moved.
    ///
    /// A stable sort moves nothing exactly when each thread's key is at most the next
    /// one's, so that is looked at first, pair by neighbouring pair (most successors
    /// are in order: on `mcs4.c`, 11,473 of 38,962 had a handle moved), and the
    /// threads are sorted only when some pair is not.
    fn sort_slots(
        &mut self,
        program: &Program,
        st: &State,
        all_registers: bool,
        order: &mut [(usize, ThreadId)],
    ) -> bool {
        let mut prefix = std::mem::take(&mut self.prefix);
        let mut ranked = std::mem::take(&mut self.ranked);
        prefix.clear();
        ranked.clear();
        for &(_, t) in order.iter() {
            let start = prefix.len();
            key_prefix(&mut prefix, &st.threads[t as usize]);
            ranked.push((t, start, prefix.len(), 0));
        }
        self.blind_globals(st);
        let mut begun = false;
        // Neighbours in order: a pair whose known bytes differ within the shorter is
        // ordered by them; one whose shorter known bytes begin the other's learns more
        // of the one that knows less, until both keys are whole (then the shorter, or
        // either when equal, is the smaller).
        let mut in_order = true;
        'neighbours: for i in 1..ranked.len() {
            loop {
                let (a, b) = (
                    known(self, &prefix, &ranked[i - 1]),
                    known(self, &prefix, &ranked[i]),
                );
                let l = a.len().min(b.len());
                if a[..l] != b[..l] {
                    if a[..l] > b[..l] {
                        in_order = false;
                        break 'neighbours;
                    }
                    break;
                }
                let k = if ranked[i - 1].3 <= ranked[i].3 {
                    i - 1
                } else {
                    i
                };
                if ranked[k].3 == 2 {
                    if a.len() > b.len() {
                        in_order = false;
                        break 'neighbours;
                    }
                    break;
                }
                self.deepen(
                    program,
                    st,
                    all_registers,
                    &mut prefix,
                    &mut ranked[k],
                    &mut begun,
                );
            }
        }
        if in_order {
            self.prefix = prefix;
            self.ranked = ranked;
            return false;
        }
        // Two threads one of whose known bytes are a prefix of the other's (or equal)
        // are not ordered yet: the one that knows less learns more.
        loop {
            let mut deeper = None;
            'pairs: for i in 0..ranked.len() {
                for j in i + 1..ranked.len() {
                    let (a, b) = (
                        known(self, &prefix, &ranked[i]),
                        known(self, &prefix, &ranked[j]),
                    );
                    let l = a.len().min(b.len());
                    if a[..l] != b[..l] {
                        continue;
                    }
                    let k = if ranked[i].3 <= ranked[j].3 { i } else { j };
                    if ranked[k].3 < 2 {
                        deeper = Some(k);
                        break 'pairs;
                    }
                }
            }
            let Some(k) = deeper else { break };
            self.deepen(
                program,
                st,
                all_registers,
                &mut prefix,
                &mut ranked[k],
                &mut begun,
            );
        }
        ranked.sort_by(|a, b| known(self, &prefix, a).cmp(known(self, &prefix, b)));
        let mut moved = false;
        for (slot, r) in order.iter_mut().zip(&ranked) {
            moved |= slot.1 != r.0;
            slot.1 = r.0;
        }
        self.prefix = prefix;
        self.ranked = ranked;
        moved
    }

    /// Learn more of the key of `r`'s thread (`sort_slots`): its thread part after its
    /// `key_prefix`, appended to `prefix`, or its whole key after that, in `bytes`
    /// (`begun`: whether `begin` ran for this state).
    fn deepen(
        &mut self,
        program: &Program,
        st: &State,
        all_registers: bool,
        prefix: &mut Vec<u8>,
        r: &mut (ThreadId, usize, usize, u8),
        begun: &mut bool,
    ) {
        let t = r.0;
        let thread = &st.threads[t as usize];
        let globals = st.memory.globals;
        if r.3 == 0 {
            let start = prefix.len();
            match self.cache.get(thread, all_registers, globals) {
                Some(e) => prefix.extend_from_slice(&e.part),
                None => {
                    write_thread(prefix, program, thread, &self.blind, all_registers);
                    self.cache
                        .insert(thread, all_registers, globals, &prefix[start..]);
                }
            }
            *r = (t, start, prefix.len(), 1);
        } else {
            if !*begun {
                self.begin(st);
                *begun = true;
            }
            self.compute_cached(program, st, all_registers, t);
            r.3 = 2;
        }
    }

    /// Thread `tid`'s key (after `begin`), from the cache while the thread and every
    /// object its key read are the same (`KeyCache`); computed and cached otherwise.
    fn compute_cached(
        &mut self,
        program: &Program,
        st: &State,
        all_registers: bool,
        tid: ThreadId,
    ) {
        let thread = &st.threads[tid as usize];
        let globals = st.memory.globals;
        if let Some(e) = self.cache.get(thread, all_registers, globals) {
            if let Some((bytes, reads)) = e.whole_in(st) {
                let (start, reads_start) = (self.bytes.len(), self.reads.len());
                self.bytes.extend_from_slice(bytes);
                self.reads.extend(reads.iter().map(|r| r.0));
                self.spans[tid as usize] = (start, self.bytes.len());
                self.read_spans[tid as usize] = (reads_start, self.reads.len());
                return;
            }
        }
        self.compute(program, st, all_registers, tid);
        // Cached only beside the thread part it extends (an entry another thread
        // took since is not brought back).
        if let Some(e) = self.cache.get(thread, all_registers, globals) {
            let key = {
                let (s, e) = self.spans[tid as usize];
                &self.bytes[s..e]
            };
            let (rs, re) = self.read_spans[tid as usize];
            let (mut bytes, mut reads) = e.whole.take().unwrap_or_default();
            bytes.clear();
            bytes.extend_from_slice(key);
            reads.clear();
            reads.extend(
                self.reads[rs..re]
                    .iter()
                    .map(|&id| (id, st.memory.get_arc(id).cloned())),
            );
            e.whole = Some((bytes, reads));
        }
    }

    /// Thread `tid`'s key (after `begin`).
    pub(crate) fn compute(
        &mut self,
        program: &Program,
        st: &State,
        all_registers: bool,
        tid: ThreadId,
    ) {
        let globals = st.memory.globals as usize;
        let t = &st.threads[tid as usize];
        let start = self.bytes.len();
        let reads_start = self.reads.len();
        write_thread(&mut self.bytes, program, t, &self.blind, all_registers);
        // The bytes of the objects the thread leads to (its stack slots and
        // thread-local copies, which at -O0 hold its locals, then what its
        // registers and those point to, breadth-first, up to `DEEP` objects),
        // pointers blinded like the registers: threads that differ only in what
        // their pointers lead to are ordered by it, not by their current order.
        let mut seen = std::mem::take(&mut self.seen);
        seen.clear();
        for f in &t.frames {
            seen.extend(f.allocas.iter().chain(f.varargs.iter()));
        }
        seen.extend(t.tls.iter().map(|&(_, o)| o));
        for f in &t.frames {
            for_each_reg(program, f, all_registers, |v| {
                v.for_each_pointer(&mut |p| seen.push(ptr_parts(p).0))
            });
        }
        let mut i = 0;
        while i < seen.len() && i < DEEP {
            let id = seen[i];
            i += 1;
            if id as usize <= globals || id >= crate::ir::FUNCTION_OBJECT_BASE {
                continue;
            }
            if seen[..i - 1].contains(&id) {
                continue;
            }
            self.object(st, id);
            self.reads.push(id);
            if let Some(o) = st.memory.get(id) {
                for &off in &o.ptrs {
                    seen.push(ptr_parts(read_u64(&o.data, off)).0);
                }
            }
        }
        self.spans[tid as usize] = (start, self.bytes.len());
        self.read_spans[tid as usize] = (reads_start, self.reads.len());
        self.seen = seen;
    }

    /// Thread `t`'s key.
    pub(crate) fn key(&self, t: ThreadId) -> &[u8] {
        let (s, e) = self.spans[t as usize];
        &self.bytes[s..e]
    }

    /// The objects thread `t`'s key read.
    pub(crate) fn reads(&self, t: ThreadId) -> &[ObjId] {
        let (s, e) = self.read_spans[t as usize];
        &self.reads[s..e]
    }

    /// The keys of `threads`, each taken from `over` when it is in `fresh` and from
    /// `from` otherwise (a base's keys after some threads' keys were computed again).
    pub(crate) fn merged(
        from: &Keys,
        over: &Keys,
        fresh: &[ThreadId],
        threads: &[ThreadId],
        n: usize,
    ) -> Keys {
        let mut k = Keys {
            spans: vec![(0, 0); n],
            read_spans: vec![(0, 0); n],
            ..Keys::default()
        };
        for &t in threads {
            let src = if fresh.contains(&t) { over } else { from };
            let s = k.bytes.len();
            k.bytes.extend_from_slice(src.key(t));
            k.spans[t as usize] = (s, k.bytes.len());
            let s = k.reads.len();
            k.reads.extend_from_slice(src.reads(t));
            k.read_spans[t as usize] = (s, k.reads.len());
        }
        k
    }

    /// The keys of `threads` with each thread `t` renamed to `new_of[t]` (a base
    /// taken from a state whose threads were renamed to its representative's).
    pub(crate) fn renamed(&self, threads: &[ThreadId], new_of: &[ThreadId]) -> Keys {
        let n = new_of.len();
        let mut k = Keys {
            spans: vec![(0, 0); n],
            read_spans: vec![(0, 0); n],
            ..Keys::default()
        };
        for &t in threads {
            let new = new_of[t as usize] as usize;
            let s = k.bytes.len();
            k.bytes.extend_from_slice(self.key(t));
            k.spans[new] = (s, k.bytes.len());
            let s = k.reads.len();
            k.reads.extend_from_slice(self.reads(t));
            k.read_spans[new] = (s, k.reads.len());
        }
        k
    }

    /// Threads `a` and `b` have equal keys (after `sort`).
    pub(crate) fn tied(&self, a: ThreadId, b: ThreadId) -> bool {
        let key = |t: ThreadId| {
            let (s, e) = self.spans[t as usize];
            &self.bytes[s..e]
        };
        key(a) == key(b)
    }

    fn object(&mut self, st: &State, id: crate::memory::ObjId) {
        let Some(o) = st.memory.get(id) else {
            self.bytes.push(0);
            return;
        };
        self.bytes
            .push(1 | (o.freed as u8) << 1 | (o.shared as u8) << 2);
        write_len(&mut self.bytes, o.data.len());
        let start = self.bytes.len();
        self.bytes.extend_from_slice(&o.data);
        for &off in &o.ptrs {
            // The object number, the pointer's upper half.
            let (obj, _) = crate::value::ptr_parts(read_u64(&o.data, off));
            if obj as usize > st.memory.globals as usize && obj < crate::ir::FUNCTION_OBJECT_BASE {
                let at = start + off as usize;
                self.bytes[at + 4..at + 8].fill(0xff);
            }
        }
        write_len(&mut self.bytes, o.ptrs.len());
        self.bytes.extend_from_slice(&o.undef);
    }
}

/// Whether the thread start routine `routine` (a function pointer) cannot read its
/// argument: the parameter is used nowhere, or only stored into a slot of its frame
/// whose address never leaves the frame and whose loads are all unused (clang's
/// `(void)arg;` without optimisation). Such a thread's states do not keep the
/// argument: the register is dead and the slot is reset once dead (`ir::slots`).
fn ignores_its_argument(program: &Program, routine: &crate::value::Val) -> bool {
    use crate::ir::liveness::for_each_operand;
    use crate::ir::{Callee, Inst, Intrinsic, Operand, FUNCTION_OBJECT_BASE};
    let crate::value::Val::Ptr(p) = routine else {
        return false;
    };
    let (obj, 0) = ptr_parts(*p) else {
        return false;
    };
    let Some(func) = obj
        .checked_sub(FUNCTION_OBJECT_BASE)
        .and_then(|f| program.functions.get(f as usize))
    else {
        return false;
    };
    let Some(body) = func.body.as_ref().filter(|_| func.params >= 1) else {
        return false;
    };
    let insts = || body.blocks.iter().flat_map(|b| b.insts.iter());
    let is_reg = |o: &Operand, r: u32| matches!(o, Operand::Reg(x) if *x == r);
    let uses = |r: u32| {
        let in_phis = body
            .blocks
            .iter()
            .flat_map(|b| b.phis.iter())
            .any(|phi| phi.incoming.iter().any(|(_, o)| is_reg(o, r)));
        let mut found = Vec::new();
        for inst in insts() {
            let mut uses_it = false;
            for_each_operand(inst, |o| uses_it |= is_reg(o, r));
            if uses_it {
                found.push(inst);
            }
        }
        (!in_phis).then_some(found)
    };
    let private_slot = |r: u32| {
        insts().any(|i| matches!(i, Inst::Alloca { dst, escapes: false, .. } if *dst == r))
    };
    // Every use of the slot only writes it, or reads it into a register used nowhere.
    let write_only = |slot: u32| {
        uses(slot).is_some_and(|found| {
            found.iter().all(|inst| match inst {
                Inst::Store { val, ptr, .. } => is_reg(ptr, slot) && !is_reg(val, slot),
                Inst::Load { dst, .. } => uses(*dst).is_some_and(|u| u.is_empty()),
                Inst::Call {
                    callee: Callee::Intrinsic(Intrinsic::NoOp),
                    ..
                } => true,
                _ => false,
            })
        })
    };
    let param = 0;
    uses(param).is_some_and(|found| {
        found.iter().all(|inst| match inst {
            Inst::Store {
                val: Operand::Reg(v),
                ptr: Operand::Reg(slot),
                ..
            } => *v == param && *slot != param && private_slot(*slot) && write_only(*slot),
            _ => false,
        })
    })
}

/// How [`JoinArray::find`] treats a call to a function without a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CallKind {
    /// Reads the memory its first argument points to and returns it, nothing else (a
    /// memory model's load).
    Load,
    /// Reads only, and takes no pointer (a memory model's fence: `main` stores nothing
    /// in its join loop, so the fence finds its buffer empty).
    Quiet,
    /// Called where the object its first argument points to dies, neither reading nor
    /// writing its contents (a memory model's eviction of a returning frame's slots).
    ObjectDies,
    Other,
}

/// `main`'s array of handles joined slot by slot (see "Joining the array in another
/// order"): the array is the `alloca`-th alloca of the entry function's first block and
/// has `slots` handles. Found by [`JoinArray::find`]; [`JoinArray::normalise`] sorts
/// its permutable slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct JoinArray {
    pub alloca: usize,
    pub slots: usize,
}

impl JoinArray {
    /// The array of conditions (1) and (2) of the module documentation, in the shapes
    /// clang gives `for (int i = 0; i < N; i++) pthread_join(t[i], 0);`: without
    /// optimisation, the index in a slot of `main` whose address never escapes, stored
    /// 0 before the loop and its own value plus 1 in it, and nothing else there; with
    /// it, the loop one block and the index a phi of it. Every other shape gives None
    /// (the search then stores what it does without this rule).
    pub(crate) fn find(
        program: &Program,
        entry: &str,
        kind: impl Fn(u32) -> CallKind,
    ) -> Option<JoinArray> {
        use crate::ir::liveness::for_each_operand;
        use crate::ir::{BinOp, Callee, CastOp, Inst, IntPred, Operand};
        use crate::value::Val;
        let is_reg = |o: &Operand, r: u32| matches!(o, Operand::Reg(x) if *x == r);
        let create = program.function("pthread_create")?;
        let join = program.function("pthread_join")?;
        let entry = program.function(entry)?;
        // (2): nothing else can join, detach or cancel a thread, or start one another
        // way; no function pointer to `pthread_join` (an indirect call could join).
        for other in [
            "pthread_detach",
            "pthread_cancel",
            "pthread_tryjoin_np",
            "pthread_timedjoin_np",
            "thrd_create",
            "thrd_join",
            "thrd_detach",
        ] {
            if program.function(other).is_some() {
                return None;
            }
        }
        let join_ptr = crate::value::make_ptr(crate::ir::FUNCTION_OBJECT_BASE + join, 0);
        let mut joins = 0;
        for func in program.functions.iter() {
            let Some(body) = &func.body else { continue };
            for inst in body.blocks.iter().flat_map(|b| b.insts.iter()) {
                if let Inst::Call {
                    callee: Callee::Direct(f),
                    ..
                } = inst
                {
                    joins += (*f == join) as u32;
                }
                let mut taken = false;
                for_each_operand(inst, |o| {
                    taken |= matches!(o, Operand::Const(Val::Ptr(p)) if *p == join_ptr)
                });
                if taken {
                    return None;
                }
            }
        }
        if joins != 1 {
            return None;
        }
        let body = program.functions[entry as usize].body.as_ref()?;
        let blocks = &body.blocks;
        // Where each register of `main` is defined, and every use (phis count as
        // uses nobody may make).
        let mut def = std::collections::HashMap::new();
        let mut uses: std::collections::HashMap<u32, Vec<(usize, usize)>> = Default::default();
        let mut allocas = Vec::new();
        for (b, block) in blocks.iter().enumerate() {
            for phi in block.phis.iter() {
                for (_, o) in phi.incoming.iter() {
                    if let Operand::Reg(r) = o {
                        uses.entry(*r).or_default().push((b, usize::MAX));
                    }
                }
            }
            for (i, inst) in block.insts.iter().enumerate() {
                if let Some(d) = crate::ir::liveness::def_of(inst) {
                    def.insert(d, (b, i));
                }
                for_each_operand(inst, |o| {
                    if let Operand::Reg(r) = o {
                        uses.entry(*r).or_default().push((b, i));
                    }
                });
                if let Inst::Alloca {
                    dst,
                    elem_size,
                    count,
                    escapes,
                    ..
                } = inst
                {
                    // Every slot of `main` is allocated once, in its first block before
                    // any call, so the array is found by its position in the frame.
                    if b != 0
                        || !matches!(count, Operand::Const(c) if c.as_u64() == 1)
                        || block.insts[..i]
                            .iter()
                            .any(|x| matches!(x, Inst::Call { .. }))
                    {
                        return None;
                    }
                    allocas.push((*dst, *elem_size, *escapes));
                }
            }
        }
        let inst_at = |(b, i): (usize, usize)| blocks.get(b).and_then(|bl| bl.insts.get(i));
        let uses_of = |r: u32| uses.get(&r).map(Vec::as_slice).unwrap_or(&[]);
        let defined = |o: &Operand| match o {
            Operand::Reg(r) => def.get(r).and_then(|&at| inst_at(at).map(|i| (at, i))),
            _ => None,
        };
        // The join: `pthread_join(v, 0)`, its result unused, `v` loaded from
        // `gep(array, index)` and used nowhere else.
        let mut site = None;
        for (b, block) in blocks.iter().enumerate() {
            for (i, inst) in block.insts.iter().enumerate() {
                if let Inst::Call {
                    callee: Callee::Direct(f),
                    ..
                } = inst
                {
                    if *f == join {
                        site = Some((b, i));
                    }
                }
            }
        }
        let (join_block, join_at) = site?;
        let Some(Inst::Call { dst, args, .. }) = inst_at((join_block, join_at)) else {
            return None;
        };
        if dst.is_some_and(|d| !uses_of(d).is_empty())
            || args.len() != 2
            || !matches!(&args[1], Operand::Const(c) if c.as_u64() == 0)
        {
            return None;
        }
        let Operand::Reg(handle) = args[0] else {
            return None;
        };
        if uses_of(handle) != [(join_block, join_at)] {
            return None;
        }
        let (load_at, slot_ptr) = match defined(&args[0])? {
            (at, Inst::Load { ptr, .. }) => (at, ptr),
            (
                at,
                Inst::Call {
                    callee: Callee::Direct(f),
                    args,
                    ..
                },
            ) if kind(*f) == CallKind::Load && !args.is_empty() => (at, &args[0]),
            _ => return None,
        };
        let Operand::Reg(slot_reg) = slot_ptr else {
            return None;
        };
        if uses_of(*slot_reg) != [load_at] {
            return None;
        }
        let (
            gep_at,
            Inst::Gep {
                base: Operand::Reg(array),
                offset: 0,
                indices,
                ..
            },
        ) = defined(slot_ptr)?
        else {
            return None;
        };
        let &(array_reg, elem_size, _) = allocas.iter().find(|a| a.0 == *array)?;
        let alloca = allocas.iter().position(|a| a.0 == array_reg)?;
        let slots = (elem_size / 8) as usize;
        if elem_size % 8 != 0 || slots < 2 {
            return None;
        }
        let [(index, 8, _)] = &indices[..] else {
            return None;
        };
        // Every other use of the array: `&t[i]` given to `pthread_create` alone, or
        // the array given to a call where it dies.
        let mut started: Option<Vec<Option<&Val>>> = None;
        for &at in uses_of(array_reg) {
            if at == gep_at {
                continue;
            }
            if let Some(Inst::Call {
                callee: Callee::Direct(f),
                args,
                ..
            }) = inst_at(at)
            {
                if kind(*f) == CallKind::ObjectDies
                    && is_reg(&args[0], array_reg)
                    && args[1..].iter().all(|a| !is_reg(a, array_reg))
                {
                    continue;
                }
            }
            // `llvm.lifetime.*` (clang with optimisation) does nothing here.
            if let Some(Inst::Call {
                callee: Callee::Intrinsic(crate::ir::Intrinsic::NoOp),
                ..
            }) = inst_at(at)
            {
                continue;
            }
            let Some(Inst::Gep { dst, base, .. }) = inst_at(at) else {
                return None;
            };
            if !is_reg(base, array_reg) {
                return None;
            }
            for &u in uses_of(*dst) {
                match inst_at(u) {
                    Some(Inst::Call {
                        callee: Callee::Direct(f),
                        args,
                        ..
                    }) if *f == create && is_reg(&args[0], *dst) => {
                        // (6): every worker started alike, with the same constant
                        // attributes, routine and argument; any argument, when the
                        // routine cannot read it.
                        let ignored = match args.get(2) {
                            Some(Operand::Const(routine)) => ignores_its_argument(program, routine),
                            _ => false,
                        };
                        // The argument's entry is `None` when the routine ignores it.
                        let rest: Option<Vec<Option<&Val>>> = args[1..]
                            .iter()
                            .enumerate()
                            .map(|(k, a)| match a {
                                // Not the slot's own address: the array stays out of
                                // the workers' reach (their first registers).
                                _ if k == 2 && ignored && !is_reg(a, *dst) => Some(None),
                                Operand::Const(v) => Some(Some(v)),
                                _ => None,
                            })
                            .collect();
                        let rest = rest?;
                        match &started {
                            Some(first) if *first != rest => return None,
                            Some(_) => {}
                            None => started = Some(rest),
                        }
                    }
                    _ => return None,
                }
            }
        }
        // How many branches lead to block `to`.
        let entries = |to: usize| {
            let mut n = 0;
            for block in blocks.iter() {
                let mut count = |t: u32| n += (t as usize == to) as u32;
                match block.insts.last() {
                    Some(Inst::Br { target }) => count(*target),
                    Some(Inst::CondBr {
                        then_bb, else_bb, ..
                    }) => {
                        count(*then_bb);
                        count(*else_bb)
                    }
                    Some(Inst::Switch { cases, default, .. }) => {
                        count(*default);
                        cases.iter().for_each(|&(_, t)| count(t));
                    }
                    _ => {}
                }
            }
            n
        };
        // What a join loop of either shape may hold besides its index and branches:
        // arithmetic, the array's slot and its load, the join, calls that only read and
        // take no pointer, and intrinsics that do nothing. None: the shape decides.
        let in_loop = |at: (usize, usize), inst: &Inst| -> Option<bool> {
            Some(match inst {
                Inst::Bin { .. } | Inst::ICmp { .. } | Inst::Cast { .. } => true,
                Inst::Gep { .. } => at == gep_at,
                Inst::Load { .. } if at == load_at => true,
                Inst::Call {
                    callee: Callee::Direct(f),
                    args,
                    ..
                } => {
                    at == (join_block, join_at)
                        || at == load_at
                        || (kind(*f) == CallKind::Quiet
                            && args
                                .iter()
                                .all(|a| matches!(a, Operand::Const(Val::Int(_)))))
                }
                Inst::Call {
                    callee: Callee::Intrinsic(crate::ir::Intrinsic::NoOp),
                    ..
                } => true,
                _ => return None,
            })
        };
        // (1) with optimisation: the index is a phi of the join's block, which is the
        // whole loop (clang rotates a loop it knows runs at least once): 0 from the
        // block before, its own value plus 1 from itself, and the loop goes round
        // until that value is the number of slots.
        let rotated = 'rotated: {
            let index = match defined(index) {
                Some((
                    _,
                    Inst::Cast {
                        op: CastOp::SExt | CastOp::ZExt,
                        a,
                        ..
                    },
                )) => a,
                _ => index,
            };
            let Operand::Reg(phi_reg) = index else {
                break 'rotated false;
            };
            let [phi] = &blocks[join_block].phis[..] else {
                break 'rotated false;
            };
            let [(from_a, a), (from_b, b)] = &phi.incoming[..] else {
                break 'rotated false;
            };
            let ((pre, zero), next) = if *from_b as usize == join_block {
                ((*from_a as usize, a), b)
            } else {
                ((*from_b as usize, b), a)
            };
            if phi.dst != *phi_reg
                || pre == join_block
                || !matches!(zero, Operand::Const(c) if c.as_u64() == 0)
            {
                break 'rotated false;
            }
            let Operand::Reg(next_reg) = next else {
                break 'rotated false;
            };
            let Some((
                add_at,
                Inst::Bin {
                    op: BinOp::Add,
                    a,
                    b,
                    ..
                },
            )) = defined(next)
            else {
                break 'rotated false;
            };
            let adds_one = |x: &Operand, y: &Operand| {
                is_reg(x, *phi_reg) && matches!(y, Operand::Const(c) if c.as_u64() == 1)
            };
            if add_at.0 != join_block
                || !(adds_one(a, b) || adds_one(b, a))
                || uses_of(*phi_reg).iter().any(|u| u.0 != join_block)
            {
                break 'rotated false;
            }
            let Some(Inst::CondBr {
                cond,
                then_bb,
                else_bb,
            }) = blocks[join_block].insts.last()
            else {
                break 'rotated false;
            };
            let Some((cmp_at, Inst::ICmp { pred, a, b, .. })) = defined(cond) else {
                break 'rotated false;
            };
            let (stays, leaves) = (
                *then_bb as usize == join_block,
                *else_bb as usize == join_block,
            );
            let goes_round = match pred {
                IntPred::Eq => leaves && !stays,
                IntPred::Ne | IntPred::Ult | IntPred::Slt => stays && !leaves,
                _ => false,
            };
            if cmp_at.0 != join_block
                || !goes_round
                || !is_reg(a, *next_reg)
                || !matches!(b, Operand::Const(c) if c.as_u64() == slots as u64)
                || uses_of(*next_reg)
                    .iter()
                    .any(|&u| u != cmp_at && u != (join_block, usize::MAX))
                || entries(join_block) != 2
                || gep_at.0 != join_block
                || load_at.0 != join_block
            {
                break 'rotated false;
            }
            // Nothing visible in the loop but the join; it ends in its branch.
            let insts = &blocks[join_block].insts;
            insts.iter().enumerate().all(|(i, inst)| {
                in_loop((join_block, i), inst)
                    .unwrap_or_else(|| matches!(inst, Inst::CondBr { .. }) && i + 1 == insts.len())
            })
        };
        if rotated {
            return Some(JoinArray { alloca, slots });
        }
        let index = match defined(index)? {
            (
                _,
                Inst::Cast {
                    op: CastOp::SExt | CastOp::ZExt,
                    a,
                    ..
                },
            ) => a,
            _ => index,
        };
        let (
            _,
            Inst::Load {
                ptr: Operand::Reg(counter),
                ..
            },
        ) = defined(index)?
        else {
            return None;
        };
        let &(_, _, counter_escapes) = allocas.iter().find(|a| a.0 == *counter)?;
        if counter_escapes {
            return None;
        }
        let counter = *counter;
        // The index: loaded anywhere, stored twice: 0 in the block `init` that enters
        // the loop, its own value plus 1 in the block `latch` that goes round.
        let (mut init, mut latch) = (None, None);
        for &at in uses_of(counter) {
            match inst_at(at)? {
                Inst::Load { ptr, .. } if is_reg(ptr, counter) => {}
                Inst::Store { val, ptr, .. } if is_reg(ptr, counter) => match val {
                    Operand::Const(c) if c.as_u64() == 0 && init.is_none() => init = Some(at.0),
                    Operand::Reg(_) if latch.is_none() => {
                        let (
                            _,
                            Inst::Bin {
                                op: BinOp::Add,
                                a,
                                b,
                                ..
                            },
                        ) = defined(val)?
                        else {
                            return None;
                        };
                        let (old, one) = match (a, b) {
                            (Operand::Const(c), o) | (o, Operand::Const(c)) if c.as_u64() == 1 => {
                                (o, ())
                            }
                            _ => return None,
                        };
                        let ((), (_, Inst::Load { ptr, .. })) = (one, defined(old)?) else {
                            return None;
                        };
                        if !is_reg(ptr, counter) {
                            return None;
                        }
                        latch = Some(at.0);
                    }
                    _ => return None,
                },
                _ => return None,
            }
        }
        let (init, latch) = (init?, latch?);
        // The header: `i < N` (or `i != N`) and nothing else; entered from `init` and
        // `latch` alone; its true branch is the join's block, which goes on to `latch`
        // (or is it), which goes back to the header.
        let target = |b: usize| match blocks[b].insts.last() {
            Some(Inst::Br { target }) => Some(*target as usize),
            _ => None,
        };
        let header = target(latch)?;
        if target(init)? != header || header == latch || header == join_block {
            return None;
        }
        let [Inst::Load {
            dst: i0,
            ptr: Operand::Reg(p0),
            ..
        }, Inst::ICmp {
            dst: c,
            pred: IntPred::Slt | IntPred::Ult | IntPred::Ne,
            a: Operand::Reg(a0),
            b: Operand::Const(bound),
            ..
        }, Inst::CondBr {
            cond: Operand::Reg(c1),
            then_bb,
            ..
        }] = &blocks[header].insts[..]
        else {
            return None;
        };
        if *p0 != counter
            || a0 != i0
            || c1 != c
            || bound.as_u64() != slots as u64
            || *then_bb as usize != join_block
            || !blocks[header].phis.is_empty()
        {
            return None;
        }
        if join_block != latch && target(join_block)? != latch {
            return None;
        }
        // The header is entered from `init` and `latch` alone, the join's block from
        // the header alone, and the latch (if another block) from the join's block.
        if entries(header) != 2
            || entries(join_block) != 1
            || (latch != join_block && entries(latch) != 1)
        {
            return None;
        }
        // Nothing visible in the loop but the join, besides the index in its slot.
        for b in [join_block, latch] {
            if !blocks[b].phis.is_empty() {
                return None;
            }
            for (i, inst) in blocks[b].insts.iter().enumerate() {
                let ok = in_loop((b, i), inst).unwrap_or_else(|| match inst {
                    Inst::Load { ptr, .. } | Inst::Store { ptr, .. } => is_reg(ptr, counter),
                    Inst::Br { .. } => true,
                    _ => false,
                });
                if !ok {
                    return None;
                }
            }
        }
        if gep_at.0 != join_block || load_at.0 != join_block {
            return None;
        }
        Some(JoinArray { alloca, slots })
    }

    /// Sort the handles of the permutable slots by their threads' keys (ties in
    /// place), when conditions (3) to (5) of the module documentation hold in `st`;
    /// else leave `st` as it is. Whether it moved a handle.
    pub(crate) fn normalise(&self, program: &Program, st: &mut State, keys: &mut Keys) -> bool {
        if st.threads.len() < 3 || st.thread_ids_in_memory {
            return false;
        }
        let main = &st.threads[0];
        let main_handle = main.handle;
        let Some(&array) = main.frames.first().and_then(|f| f.allocas.get(self.alloca)) else {
            return false;
        };
        let Some(o) = st.memory.get(array) else {
            return false;
        };
        let n = self.slots;
        if o.data.len() != 8 * n || o.ptrs.len() != n || !o.undef.is_empty() {
            return false;
        }
        // (3): every slot holds a distinct thread's handle.
        let mut handles = std::mem::take(&mut keys.handles);
        let mut tids = std::mem::take(&mut keys.tids);
        let mut order = std::mem::take(&mut keys.order);
        handles.clear();
        tids.clear();
        order.clear();
        let sorted = 'sorted: {
            handles.extend((0..n).map(|i| read_u64(&o.data, 8 * i as u32)));
            for &h in &handles {
                let (obj, off) = ptr_parts(h);
                let t = st.threads.iter().position(|t| t.handle == obj);
                match t {
                    Some(t) if off == 0 && t != 0 && !tids.contains(&(t as ThreadId)) => {
                        tids.push(t as ThreadId)
                    }
                    _ => break 'sorted None,
                }
            }
            // The slots whose threads are not joined and whose handles no register of
            // `main` holds, as (slot, thread).
            // (`held`: the objects `main`'s registers point to, gathered once for each
            // `main` (its `Arc`, held meanwhile: the same pointer, the same contents,
            // as in `KeyCache`); most transitions are another thread's.)
            let mut held = std::mem::take(&mut keys.held);
            if !keys.held_by.as_ref().is_some_and(|m| Arc::ptr_eq(m, main)) {
                held.clear();
                for f in &main.frames {
                    for v in f.regs.iter() {
                        v.for_each_pointer(&mut |p| held.push(ptr_parts(p).0));
                    }
                }
                keys.held_by = Some(main.clone());
            }
            for (i, (&t, &h)) in tids.iter().zip(&handles).enumerate() {
                if !st.threads[t as usize].joined && !held.contains(&ptr_parts(h).0) {
                    order.push((i, t));
                }
            }
            keys.held = held;
            if order.len() < 2 {
                break 'sorted None;
            }
            Some(keys.sort_slots(program, st, false, &mut order))
        };
        let changed = sorted == Some(true);
        let result = changed.then(|| {
            order
                .iter()
                .map(|&(i, t)| (i, handles[tids.iter().position(|&x| x == t).unwrap_or(i)]))
                .collect::<Vec<(usize, u64)>>()
        });
        keys.handles = handles;
        keys.tids = tids;
        keys.order = order;
        let Some(result) = result else {
            return false;
        };
        // Only a state the sort would change is looked at further: (4) no thread can
        // wait on `main` (its handle is in no object); (5) the extension data points
        // nowhere into the array.
        for id in 1..st.memory.len() as ObjId {
            if let Some(o) = st.memory.get(id) {
                if o.ptrs
                    .iter()
                    .any(|&off| ptr_parts(read_u64(&o.data, off)).0 == main_handle)
                {
                    return false;
                }
            }
        }
        if let Some(ext) = &st.ext {
            let mut into = false;
            ext.for_each_pointer(&mut |p| into |= ptr_parts(p).0 == array);
            if into {
                return false;
            }
        }
        let Some(o) = st.memory.get_mut(array) else {
            return false;
        };
        for (i, h) in result {
            o.data[8 * i..8 * i + 8].copy_from_slice(&h.to_le_bytes());
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::{Memory, ObjKind, Object};
    use crate::state::{Frame, ReturnTo, Thread};
    use crate::value::{make_ptr, Val};
    use std::sync::Arc;

    /// `sort_slots` orders threads exactly as a stable sort by their whole keys, though
    /// it computes only some of them, and says it moved one exactly when the order
    /// changed: over random threads that share or differ in their outermost and
    /// innermost frames' positions, depth, registers, and the contents of the objects
    /// their registers point to; with fresh scratch, and with one scratch whose cache
    /// has seen every state before.
    #[test]
    fn slots_sorted_as_by_whole_keys() {
        let program = Program::default();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let mut computed = 0;
        let mut shared = Keys::default();
        // Kept, so that no later thread or object takes the address of an earlier one
        // the cache no longer holds (the cache may hold it still: that is its rule).
        let mut states = Vec::new();
        for _ in 0..500 {
            let mut mem = Memory::new();
            let objects: Vec<ObjId> = (0..3)
                .map(|_| {
                    let mut o = Object::new(8, ObjKind::Heap);
                    o.data[0] = next(2) as u8;
                    mem.allocate(o)
                })
                .collect();
            let mut st = State::new(mem);
            for _ in 0..5 {
                let frames = (0..1 + next(2))
                    .map(|_| Frame {
                        func: next(2) as u32,
                        block: 0,
                        ip: next(2) as u32,
                        regs: Arc::new(match next(3) {
                            0 => vec![],
                            1 => vec![Val::Int(next(2) as u128)],
                            _ => vec![Val::Ptr(make_ptr(objects[next(3) as usize], 0))],
                        }),
                        undef: Vec::new(),
                        allocas: Vec::new(),
                        varargs: None,
                        ret: ReturnTo::Caller,
                    })
                    .collect();
                let mut t = Thread::new(Frame {
                    func: 0,
                    block: 0,
                    ip: 0,
                    regs: Arc::new(vec![]),
                    undef: Vec::new(),
                    allocas: Vec::new(),
                    varargs: None,
                    ret: ReturnTo::Caller,
                });
                t.frames = frames;
                t.phase = next(2) as u32;
                st.threads.push(Arc::new(t));
            }
            let mut order: Vec<(usize, ThreadId)> = (1..5).map(|t| (t as usize, t)).collect();
            let mut keys = Keys::default();
            let moved = keys.sort_slots(&program, &st, true, &mut order);
            computed += keys.spans.iter().filter(|s| s.1 > s.0).count();
            let mut whole = Keys::default();
            let mut expected: Vec<ThreadId> = (1..5).collect();
            whole.sort(&program, &st, true, &mut expected);
            let got: Vec<ThreadId> = order.iter().map(|&(_, t)| t).collect();
            assert_eq!(got, expected);
            assert_eq!(moved, expected != [1, 2, 3, 4]);
            let mut order: Vec<(usize, ThreadId)> = (1..5).map(|t| (t as usize, t)).collect();
            shared.sort_slots(&program, &st, true, &mut order);
            let got: Vec<ThreadId> = order.iter().map(|&(_, t)| t).collect();
            assert_eq!(got, expected);
            states.push(st);
        }
        assert!(computed < 500 * 4, "some keys were never computed");
    }

    use crate::store::canon::tests::pointer_frame as frame_with;

    /// The threads of `order` after `sort_slots` with `keys`, and whether it moved one.
    fn sorted(keys: &mut Keys, st: &State) -> (Vec<ThreadId>, bool) {
        let mut order: Vec<(usize, ThreadId)> =
            (1..st.threads.len()).map(|t| (t, t as ThreadId)).collect();
        let moved = keys.sort_slots(&Program::default(), st, true, &mut order);
        (order.iter().map(|&(_, t)| t).collect(), moved)
    }

    /// The key cache holds each thread it keyed: a thread changed in place after it was
    /// keyed (its state the only other holder) is copied, so the next sort keys the
    /// copy afresh. A cache that did not hold it would find the same address with
    /// other contents and order by the old ones.
    #[test]
    fn a_thread_changed_after_it_was_keyed_is_keyed_again() {
        let mut st = State::new(Memory::new());
        st.threads.push(Arc::new(Thread::new(frame_with(vec![]))));
        for v in [0, 1] {
            st.threads
                .push(Arc::new(Thread::new(frame_with(vec![Val::Int(v)]))));
        }
        let mut keys = Keys::default();
        assert_eq!(sorted(&mut keys, &st), (vec![1, 2], false));
        let t = Arc::make_mut(&mut st.threads[1]);
        t.frames[0].regs = Arc::new(vec![Val::Int(2)]);
        assert_eq!(sorted(&mut keys, &st), (vec![2, 1], true));
    }

    /// A whole key is taken from the cache only while every object it read is the
    /// same: two threads told apart only by the objects their registers point to are
    /// ordered again when one of those objects changes. A cache that checked the
    /// thread alone would keep the old order.
    #[test]
    fn a_whole_key_is_computed_again_when_an_object_it_read_changed() {
        let mut mem = Memory::new();
        let objects: Vec<ObjId> = (0..2u8)
            .map(|v| {
                let mut o = Object::new(8, ObjKind::Heap);
                o.data[0] = v;
                mem.allocate(o)
            })
            .collect();
        let mut st = State::new(mem);
        st.threads.push(Arc::new(Thread::new(frame_with(vec![]))));
        for &o in &objects {
            let regs = vec![Val::Ptr(make_ptr(o, 0))];
            st.threads.push(Arc::new(Thread::new(frame_with(regs))));
        }
        let mut keys = Keys::default();
        assert_eq!(sorted(&mut keys, &st), (vec![1, 2], false));
        if let Some(o) = st.memory.get_mut(objects[0]) {
            o.data[0] = 2;
        }
        assert_eq!(sorted(&mut keys, &st), (vec![2, 1], true));
    }

    /// `normalise` reads which handles `main` holds again when `main` changed: `main`
    /// that held the first slot's handle (that slot stays) and then let it go has all
    /// three slots sorted. Objects `main` held read from the `main` before would leave
    /// the first slot in place.
    #[test]
    fn handles_main_holds_are_read_again_when_main_changed() {
        let mut mem = Memory::new();
        let mut handle = || mem.allocate(Object::new(8, ObjKind::Heap));
        let handles: Vec<ObjId> = (0..4).map(|_| handle()).collect();
        let mut array = Object::new(24, ObjKind::Stack);
        for (i, &h) in handles[1..].iter().enumerate() {
            array.data[8 * i..8 * i + 8].copy_from_slice(&make_ptr(h, 0).to_le_bytes());
            array.ptrs.push(8 * i as u32);
        }
        let array = mem.allocate(array);
        let mut st = State::new(mem);
        let mut main = Thread::new(frame_with(vec![Val::Ptr(make_ptr(handles[1], 0))]));
        main.frames[0].allocas = vec![array];
        main.handle = handles[0];
        st.threads.push(Arc::new(main));
        // Told apart by their phase alone: the slots' order is by phase.
        for (phase, &h) in [5, 1, 0].iter().zip(&handles[1..]) {
            let mut t = Thread::new(frame_with(vec![]));
            t.phase = *phase;
            t.handle = h;
            st.threads.push(Arc::new(t));
        }
        let slots = |st: &State| -> Vec<u32> {
            let o = st
                .memory
                .get(array)
                .map(|o| o.data.clone())
                .unwrap_or_default();
            (0..3)
                .map(|i| ptr_parts(read_u64(&o, 8 * i as u32)).0)
                .collect()
        };
        let join = JoinArray {
            alloca: 0,
            slots: 3,
        };
        let (program, mut keys) = (Program::default(), Keys::default());
        assert!(join.normalise(&program, &mut st, &mut keys));
        assert_eq!(slots(&st), [handles[1], handles[3], handles[2]]);
        Arc::make_mut(&mut st.threads[0]).frames[0].regs = Arc::new(vec![]);
        assert!(join.normalise(&program, &mut st, &mut keys));
        assert_eq!(slots(&st), [handles[3], handles[2], handles[1]]);
    }
}
