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
//! **Handles kept in an array** (`for (i…) pthread_create(&t[i], 0, worker, 0)`). The
//! threads are reached from `main`'s array in its order, so they are not free to be
//! sorted, and renaming cannot merge "t[0]'s thread at A, t[1]'s at B" with the state
//! where they trade places: renaming both threads and handles gives the same array
//! with the roles swapped, a different state, and the program may tell them apart.
//! `main` that joins `t[0]` and then reads a flag that only the first worker to run
//! sets fails in one and not the other, although it uses the array for nothing but
//! `pthread_create` and `pthread_join(t[i], 0)`. Merging them is sound only with a
//! stronger argument than renaming: that `main` joins *every* handle of the array back
//! to back (no visible action in between, return value and result unused), so the
//! order of those joins commutes and the states after them are equal. That argument
//! preserves verdicts but not paths (a path of representatives would join a thread
//! the real state has not finished), so counterexamples, limit paths and replayed race
//! reports would need a search without it, and the condition needs a proof over the
//! IR (an induction variable that visits every index once). Not done: such threads
//! keep their creation order, and symmetry applies to threads no kept handle reaches
//! (detached workers, handles in a slot that is dead once the next thread starts).
//! `tests/engine_symmetry.rs` `handle_order_that_matters_is_kept` holds the program
//! above as the case any such rule must keep failing.
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
/// no interleaving changes, so no state is ever free to sort (see **Handles kept in
/// an array** above): the traversal up to symmetry would find only permutations that
/// no other path produces, and renaming the race data for them is pure cost. A search
/// of such a program canonicalises without symmetry; that is always sound, only this
/// reduction is given up, and here there is none. A call this does not recognise keeps
/// symmetry on.
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
