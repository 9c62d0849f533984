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
//! history of the slots' writes would not move with their contents). Under these, s
//! and N(s) reach the same errors, deadlocks, hangs and outcomes: the workers cannot
//! see the array; `main`'s steps in the join region only wait, and postponing them to
//! the point where every remaining thread has finished gives the same state after the
//! region (all joined, the same clock); `main` being on no wait cycle, the thread it is
//! blocked on decides no wait-for verdict. For the hang check on the explored graph of
//! normal forms, a state that reaches an end in the program and not in that graph, with
//! the least (steps outside `main`'s joins, unjoined slots) to an end, has a successor
//! whose normal form is another such state with less: so there is none.
//!
//! What building it needs beyond that: (a) N is no congruence: `main`'s transition that
//! joins `t[k]` goes on to read `t[k+1]` (invisibly: no other thread reaches the
//! array), a slot N may have permuted, so from s and N(s) it leads to states that
//! differ in which thread `main` holds, which N keeps apart. Sleep sets assume the
//! congruence (a sleeping thread's move is covered from a sibling), and the hang check,
//! re-running the sleepers of a candidate, looks their successors up in the store
//! (`explore/liveness.rs`) and would stop inconclusive on one never stored (measured on
//! `mcs4.c`). Either sleep sets are off while N acts (on `mcs4.c`, 3 % more
//! transitions), or the footprint of a transition of `main` that reads the array makes
//! it dependent on every other (worker transitions commute with N); the argument for
//! the hang check above needs every move of a normal form in the graph. (b) A path
//! over normal forms is not a run: `explore/symmetric_path.rs` undoes renamings only,
//! so a failure must be searched again with N off (the breadth-first search
//! `explore::search_with` already runs for a shortest counterexample; also with
//! `-j` > 1 without sleep sets), and a limit that stops that second search must leave
//! no unreplayable path. (c) The analysis of (1) and the checks (2)–(5). Not built:
//! [`handles_pin_every_thread`] keeps symmetry off for these programs (`mcs4.c`,
//! `ticket4x2_acqrel.c` in `bench/programs`). What N would gain on them (a quarter to a
//! third of the states), and the verdicts the rule as first proposed gets wrong on the
//! three tests' programs, were measured with a patch applying it: `bench/PERFORMANCE.md`,
//! "Joining the array in another order".
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
use crate::memory::ObjId;
use crate::state::{State, ThreadId};
use crate::value::ptr_parts;

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
/// keeps symmetry on.
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
}

impl Keys {
    /// Forget the keys computed so far; ready for the keys of `st`'s threads.
    pub(crate) fn begin(&mut self, st: &State) {
        let globals = st.memory.globals as usize;
        if self.blind.len() != globals + 1 {
            self.blind.clear();
            self.blind.extend(0..=globals as u32);
        }
        self.bytes.clear();
        self.spans.clear();
        self.spans.resize(st.threads.len(), (0, 0));
        self.reads.clear();
        self.read_spans.clear();
        self.read_spans.resize(st.threads.len(), (0, 0));
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
