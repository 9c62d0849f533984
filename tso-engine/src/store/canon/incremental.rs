//! Incremental canonicalisation: canonicalisation touches only what changed since
//! the parent. A successor keeps its parent's numbering when a full traversal would give
//! it again; then its unchanged threads and objects take the parent's chunk ids without
//! being looked at. `Canonicalizer::keeps_base_numbering` checks the rules below step
//! by step, and `check` (hidden `--check-incremental-canon`) canonicalises afresh too
//! and compares.
//!
//! A search hands the worker's canonicaliser the state it expands as a `Base`
//! (`swap_base`; depth-first: each node keeps the base its arrival's run gave,
//! `base_from_last_run`; breadth-first and rebuilt nodes: a traversal of the rebuilt
//! state with the chunk ids it was rebuilt from, `base_by_traversal`). A base is its
//! threads and memory (shared `Arc`s), the numbering its full traversal gave
//! (`Numbering`: `map`, `order`, and when each step of the traversal ran: how many
//! objects were numbered when it went through object k's pointers, thread t's roots,
//! the extension data's), its chunk ids, and up to symmetry its sorted threads' keys
//! with the objects each key read. A base's traversal leaves the threads in their
//! order: when a run up to symmetry permuted them, the state is then renamed to its
//! representative (`to_representative`), whose own traversal would number the same
//! objects at the same steps with each thread at the step of the thread it renames
//! (the traversal depends on the state up to renaming, and threads it cannot tell
//! apart keep their order, which the renaming keeps); so its base is the run's
//! numbering with `thread_at` and the keys carried to the new ids, the sorted threads
//! sorted again by key with ties in their new order (`incremental_base_of_a_permuted_parent`).
//! Without it every state below a renaming lost its base: with the join-array rule,
//! whose sorted slots make `main` reach the workers out of their order, that was
//! most of them. A successor keeps the base's numbering, without a traversal
//! (`keeps_base_numbering`), when: (0) the same store, `all_registers`, race data
//! present or not, and plain or symmetric traversal (`symmetry::renamable`); (1) the
//! same thread count, `Memory::len` and globals; (2) every object slot that holds
//! another `Arc` (`Memory::differing`: whole pages compared first) held an object
//! before and still does, as constant as before, and if the base numbered it, the ids
//! its pointers name that the step could be the first to reach (`same_effect`: not
//! numbered when the step ran, never numbered, or missing) are the same in the same
//! order; (3) the same for every thread whose `Arc` changed, over its roots
//! (`for_each_root`, first reaches from the `reuse.rs` cache), and up to symmetry its
//! own objects (handle, stack slots, thread-local copies: `first_reached`) are
//! unchanged; (4) the same for the extension data's pointers; (5) up to symmetry, the
//! keys computed again for the threads that changed or whose key read a changed
//! object keep every neighbouring pair of the sorted threads in the same relation
//! (less or equal), so the stable sort gives the same order and ties. Exact: the
//! traversal is a sequence of steps (thread walks, extension data, each numbered
//! object's pointers) whose order depends only on the numbering so far and the keys;
//! by induction every step starts from the base's numbering so far, and a step gives
//! the same numbers iff the ids it may be the first to reach are the same in order
//! (ids already numbered change nothing); (5) and (3) keep the symmetric decisions.
//! The chunks are then the base's ids for the threads and objects whose `Arc` is the
//! base's (their bytes depend only on contents and the numbering), and serialised for
//! the rest, the process-wide chunk and the extension and race data; the numbering
//! (shared, `kept`) is what garbage collection and `to_representative` read. Anything
//! else is numbered afresh. Tested rule by rule (`incremental_rule_*`, which fail
//! when the rule is dropped), by the self-check `--check-incremental-canon` (hidden;
//! every incremental result compared with a fresh canonicaliser's chunk ids,
//! numbering and thread order) in `tests/tests/differential_canon.rs`, and by state
//! counts equal to `--no-incremental-canon` (hidden, also in `tso-bench --one`, which
//! prints how many runs kept the numbering). Successors that really renumber (a call
//! or return that adds or frees stack slots, a register or a flushed store that
//! points to a fresh node) fall back; how often, per program, is in `bench/PERFORMANCE.md`
//! ("Incremental canonicalisation").
//! A thread's traversal roots are kept once each and without null (a second reach of
//! an id and a reach of null change nothing), and their replay skips ids already
//! numbered.

use super::*;

/// A state canonicalised, kept while its successors are canonicalised
/// (`Canonicalizer::swap_base`): the threads and memory it had (shared `Arc`s, to see
/// what a successor changed), the numbering its traversal gave, with the threads in
/// their own order, and the store's chunk ids of its serialisation.
pub struct Base {
    threads: Vec<Arc<Thread>>,
    memory: Memory,
    /// Shared with the bases of the successors that kept it.
    num: Arc<Numbering>,
    /// The chunk ids: the process-wide chunk, one per thread, one per object of
    /// `num.order` that is not constant, then extension and race data.
    ids: Vec<u32>,
    /// The objects the extension data points to, in `for_each_pointer` order.
    ext: Vec<ObjId>,
    races: bool,
    all_registers: bool,
    generation: u32,
    /// Numbered by the traversal up to symmetry (with the identity permutation).
    symmetric: bool,
    /// Up to symmetry: the threads sorted by key and their keys.
    keys: Option<Arc<(Vec<ThreadId>, symmetry::Keys)>>,
}

/// A traversal's numbering (see the fields of the same names in `Canonicalizer`).
pub(super) struct Numbering {
    pub(super) map: Vec<u32>,
    pub(super) order: Vec<ObjId>,
    at: Vec<u32>,
    thread_at: Vec<u32>,
    ext_at: u32,
    /// Position in the chunk ids of the object numbered `k + 1` (`u32::MAX`: a
    /// constant), and how many objects have chunks.
    chunk_of: Vec<u32>,
    objects: usize,
}

/// Runs with a base and runs that kept its numbering, of the canonicalisers dropped
/// so far in this process (`Canonicalizer::counts`).
static COUNTS: [std::sync::atomic::AtomicU64; 2] = [
    std::sync::atomic::AtomicU64::new(0),
    std::sync::atomic::AtomicU64::new(0),
];

/// (runs with a base, runs that kept its numbering) of the canonicalisers dropped so
/// far in this process (for the benchmark).
pub fn incremental_counts() -> (u64, u64) {
    let c = |i: usize| COUNTS[i].load(std::sync::atomic::Ordering::Relaxed);
    (c(0), c(1))
}

impl Drop for Canonicalizer {
    fn drop(&mut self) {
        use std::sync::atomic::Ordering::Relaxed;
        COUNTS[0].fetch_add(self.counts.0, Relaxed);
        COUNTS[1].fetch_add(self.counts.1, Relaxed);
    }
}

impl Canonicalizer {
    /// Canonicalise the successors of `st` incrementally: `st` was just serialised by
    /// `run` (its representative, with garbage collected, is what `st` is now) and
    /// stored with chunk ids `ids`. None when that run permuted its threads or did not
    /// use the store's caches.
    pub fn base_from_last_run(&self, st: &State, ids: &[u32]) -> Option<Box<Base>> {
        // A run that permuted the threads: `st` is its representative, whose own
        // traversal would number the same objects the same way with the threads in
        // their order (the threads' renaming carries every step; threads tied in key
        // and reach order take their places in the same order). So the base is this
        // run's numbering with the threads renamed.
        let renamed = !is_identity(&self.perm);
        if !self.incremental
            || self.cache_generation == 0
            || (renamed && self.last != Last::Symmetric)
        {
            return None;
        }
        let (symmetric, keys, kept) = match self.last {
            Last::Plain => (false, None, None),
            Last::Symmetric if renamed => {
                let keys = (!self.sorted_free.is_empty()).then(|| {
                    let k = self.keys.renamed(&self.sorted_free, &self.new_of);
                    let mut sorted: Vec<ThreadId> = self
                        .sorted_free
                        .iter()
                        .map(|&t| self.new_of[t as usize])
                        .collect();
                    // The stable sort of the representative's threads: by key, ties
                    // in their (new) order.
                    sorted.sort_by(|&a, &b| k.key(a).cmp(k.key(b)).then(a.cmp(&b)));
                    Arc::new((sorted, k))
                });
                (true, keys, None)
            }
            Last::Symmetric => {
                let sorted = &self.sorted_free;
                let keys = (!sorted.is_empty()).then(|| {
                    let k = symmetry::Keys::merged(
                        &self.keys,
                        &self.keys,
                        &[],
                        sorted,
                        st.threads.len(),
                    );
                    Arc::new((sorted.clone(), k))
                });
                (true, keys, None)
            }
            Last::Incremental => {
                let b = self.base.as_deref()?;
                let keys = b.keys.as_ref().map(|k| {
                    if self.rekeyed.is_empty() {
                        return k.clone();
                    }
                    let (sorted, old) = &**k;
                    let merged = symmetry::Keys::merged(
                        old,
                        &self.keys,
                        &self.rekeyed,
                        sorted,
                        st.threads.len(),
                    );
                    Arc::new((sorted.clone(), merged))
                });
                (b.symmetric, keys, self.kept.clone())
            }
            Last::None | Last::Refused => return None,
        };
        let num = match kept {
            Some(num) => num,
            None => {
                let mut chunk_of = Vec::with_capacity(self.order.len());
                let mut next = 1 + st.threads.len() as u32;
                for &id in &self.order {
                    if st.memory.get(id).is_some_and(|o| !o.constant) {
                        chunk_of.push(next);
                        next += 1;
                    } else {
                        chunk_of.push(u32::MAX);
                    }
                }
                Arc::new(Numbering {
                    map: self.map.clone(),
                    order: self.order.clone(),
                    at: self.at.clone(),
                    thread_at: if renamed {
                        self.perm
                            .iter()
                            .map(|&old| self.thread_at[old as usize])
                            .collect()
                    } else {
                        self.thread_at.clone()
                    },
                    ext_at: self.ext_at,
                    chunk_of,
                    objects: next as usize - 1 - st.threads.len(),
                })
            }
        };
        if ids.len() < 1 + st.threads.len() + num.objects + st.ext.is_some() as usize {
            return None;
        }
        let mut ext = Vec::new();
        if let Some(e) = &st.ext {
            e.for_each_pointer(&mut |p| ext.push(ptr_parts(p).0));
        }
        Some(Box::new(Base {
            threads: st.threads.clone(),
            memory: st.memory.clone(),
            num,
            ids: ids.to_vec(),
            ext,
            races: st.races.is_some(),
            all_registers: self.all_registers,
            generation: self.cache_generation,
            symmetric,
            keys,
        }))
    }

    /// `base_from_last_run` for a state not just serialised (rebuilt from the store as
    /// `ids`): its numbering by a traversal.
    pub fn base_by_traversal(
        &mut self,
        program: &Program,
        st: &State,
        ids: &[u32],
    ) -> Option<Box<Base>> {
        if !self.incremental || self.cache_generation == 0 {
            return None;
        }
        self.number(program, st);
        self.base_from_last_run(st, ids)
    }

    /// The last `run` kept the base's numbering.
    pub fn was_incremental(&self) -> bool {
        self.last == Last::Incremental
    }

    /// What the last `run` numbered and ordered, to compare with another run.
    pub(in crate::store) fn numbering(&self) -> (&[u32], &[ObjId], &[ThreadId], &[u32]) {
        match &self.kept {
            Some(num) => (&num.map, &num.order, &self.perm, &self.free_starts),
            None => (&self.map, &self.order, &self.perm, &self.free_starts),
        }
    }

    /// The state whose successors are canonicalised next (None: every state afresh).
    pub fn swap_base(&mut self, base: &mut Option<Box<Base>>) {
        std::mem::swap(&mut self.base, base);
    }

    /// Thread `t`'s first reaches (`first_reaches` of `for_each_root`), from the cache.
    fn roots_into(&mut self, program: &Program, t: &Arc<Thread>, flags: u8, out: &mut Vec<ObjId>) {
        out.clear();
        if let Some(e) = self.thread_reuse.get(t, flags) {
            out.extend_from_slice(&e.roots);
            return;
        }
        for_each_root(program, t, self.all_registers, |o| out.push(o));
        first_reaches(out);
        self.thread_reuse.insert(t, flags, out);
    }

    /// Whether the full traversal of `st` would give the base's numbering and thread
    /// order (the rules and why each is enough: the module doc).
    /// Fills `changed` (objects whose `Arc` differs from the base's),
    /// `changed_threads`, and `rekeyed` (threads whose symmetry key was computed again,
    /// in `keys`).
    pub(super) fn keeps_base_numbering(&mut self, program: &Program, st: &State) -> bool {
        let Some(b) = self.base.take() else {
            return false;
        };
        let keeps = self.same_numbering(program, st, &b);
        self.base = Some(b);
        keeps
    }

    fn same_numbering(&mut self, program: &Program, st: &State, b: &Base) -> bool {
        self.changed.clear();
        self.changed_threads.clear();
        self.rekeyed.clear();
        // The same settings and the same traversal (plain or up to symmetry).
        let symmetric = self.symmetry && symmetry::renamable(st);
        if b.generation != self.cache_generation
            || b.all_registers != self.all_registers
            || b.symmetric != symmetric
            || b.races != st.races.is_some()
        {
            return false;
        }
        // Rule 1: the same threads and object ids.
        if st.threads.len() != b.threads.len()
            || st.memory.len() != b.memory.len()
            || st.memory.globals != b.memory.globals
        {
            return false;
        }
        let mut old_ids = std::mem::take(&mut self.roots_a);
        let mut new_ids = std::mem::take(&mut self.roots_b);
        let same = self.same_steps(program, st, b, &mut old_ids, &mut new_ids);
        self.roots_a = old_ids;
        self.roots_b = new_ids;
        if !same {
            return false;
        }
        // Rule 5 (up to symmetry): the keys of the threads sorted by key keep their
        // order and ties, computed again for the threads that changed or whose key read
        // an object that changed.
        if let Some((sorted, keys)) = b.keys.as_deref() {
            self.keys.begin(st);
            for &t in sorted {
                let stale = self.changed_threads.contains(&t)
                    || keys.reads(t).iter().any(|o| self.changed.contains(o));
                if stale {
                    self.keys.compute(program, st, self.all_registers, t);
                    self.rekeyed.push(t);
                }
            }
            let key = |t: ThreadId| {
                if self.rekeyed.contains(&t) {
                    self.keys.key(t)
                } else {
                    keys.key(t)
                }
            };
            if !self.rekeyed.is_empty()
                && sorted
                    .windows(2)
                    .any(|w| keys.key(w[0]).cmp(keys.key(w[1])) != key(w[0]).cmp(key(w[1])))
            {
                return false;
            }
        }
        true
    }

    /// Rules 2 to 4: each step of the base's traversal that reads something `st`
    /// changed gives the same first reaches in the same order (`effect`).
    fn same_steps(
        &mut self,
        program: &Program,
        st: &State,
        b: &Base,
        a: &mut Vec<ObjId>,
        c: &mut Vec<ObjId>,
    ) -> bool {
        let targets = |o: &Object, out: &mut Vec<ObjId>| {
            out.clear();
            out.extend(
                o.ptrs
                    .iter()
                    .map(|&off| ptr_parts(read_u64(&o.data, off)).0),
            );
        };
        // Rule 3 (checked first: it fails most often): every thread that changed
        // reaches the same objects first, in the same order; up to symmetry also with
        // the same own objects (`first_reached`).
        let flags = self.reuse_flags(st);
        for t in 0..st.threads.len() {
            let (old, new) = (&b.threads[t], &st.threads[t]);
            if Arc::ptr_eq(old, new) {
                continue;
            }
            self.changed_threads.push(t as ThreadId);
            self.roots_into(program, old, flags, a);
            self.roots_into(program, new, flags, c);
            if !same_effect(&b.num.map, b.num.thread_at[t], a, c)
                || (b.symmetric && !same_own_objects(old, new))
            {
                return false;
            }
        }
        // Rule 2: every object that changed still exists (and no new one exists), is
        // as constant as before, and, if the base numbered it, its pointers' targets
        // reach the same objects first.
        for (id, old, new) in st.memory.differing(&b.memory) {
            let (Some(old), Some(new)) = (old, new) else {
                return false;
            };
            if old.constant != new.constant {
                return false;
            }
            self.changed.push(id);
            let num = &*b.num;
            let k = num.map[id as usize];
            if k == 0 || (old.ptrs.is_empty() && new.ptrs.is_empty()) {
                // Not reached: its pointers are never read.
                continue;
            }
            let at = num.at[k as usize - 1];
            targets(old, a);
            targets(new, c);
            if !same_effect(&num.map, at, a, c) {
                return false;
            }
        }
        // Rule 4: the extension data's pointers reach the same objects first.
        c.clear();
        if let Some(ext) = &st.ext {
            ext.for_each_pointer(&mut |p| c.push(ptr_parts(p).0));
        }
        if c != &b.ext && !same_effect(&b.num.map, b.num.ext_at, &b.ext, c) {
            return false;
        }
        true
    }

    /// Serialise `st` with the base's numbering: the chunks of the threads and objects
    /// that did not change are the base's ids.
    pub(super) fn serialize_incremental(
        &mut self,
        program: &Program,
        st: &State,
        include_output: bool,
    ) {
        let Some(b) = self.base.take() else {
            unreachable!("checked by keeps_base_numbering")
        };
        let n = st.threads.len();
        let num = b.num.clone();
        self.perm.clear();
        self.perm.extend(0..n as ThreadId);
        self.new_of.clone_from(&self.perm);
        self.permuted_ext = None;
        self.permuted_races = None;
        self.free_starts.clear();
        if let Some((sorted, _)) = b.keys.as_deref() {
            self.free_starts.extend(
                sorted
                    .iter()
                    .filter_map(|&t| st.threads[t as usize].frames.first().map(|f| f.func)),
            );
            self.free_starts.sort_unstable();
        }
        let map = &num.map;
        self.chunks.clear();
        self.write_process(st, num.objects, include_output);
        for t in 0..n {
            if Arc::ptr_eq(&st.threads[t], &b.threads[t]) {
                self.chunks.parts.push(Part::Known(b.ids[1 + t]));
            } else {
                self.thread_part(program, st, t as ThreadId, map);
            }
        }
        // The changed objects that are numbered and not constant, by chunk position.
        let mut changed = std::mem::take(&mut self.changed);
        changed.retain(|&id| {
            let k = map.get(id as usize).copied().unwrap_or(0);
            k != 0 && k != INVALID && num.chunk_of[k as usize - 1] != u32::MAX
        });
        changed.sort_unstable_by_key(|&id| map[id as usize]);
        let mut next = 1 + n;
        for &id in &changed {
            let at = num.chunk_of[map[id as usize] as usize - 1] as usize;
            self.chunks
                .parts
                .extend(b.ids[next..at].iter().map(|&i| Part::Known(i)));
            self.object_part(st, id, map);
            next = at + 1;
        }
        let end = 1 + n + num.objects;
        self.chunks
            .parts
            .extend(b.ids[next..end].iter().map(|&i| Part::Known(i)));
        self.changed = changed;
        self.tail_parts(st, map);
        self.kept = Some(num);
        self.base = Some(b);
    }
}

/// Whether a traversal step that reaches the objects `old` reaches, from the numbering
/// `map` gave the first `at` objects (and no other), the same objects first in the
/// same order when it reaches `new` instead. Only ids the step may be the first to
/// reach count: not yet numbered then (numbered later, never, or known missing:
/// `INVALID`, counted whenever it is named); null, function ids and ids past the
/// table change nothing (`reach_obj`).
fn same_effect(map: &[u32], at: u32, old: &[ObjId], new: &[ObjId]) -> bool {
    fn first<'a>(map: &'a [u32], at: u32, ids: &'a [ObjId]) -> impl Iterator<Item = ObjId> + 'a {
        ids.iter().enumerate().filter_map(move |(i, &o)| {
            let m = map.get(o as usize).copied().unwrap_or(0);
            let may = o != 0
                && o < FUNCTION_OBJECT_BASE
                && (o as usize) < map.len()
                && (m == 0 || m == INVALID || m > at)
                && !ids[..i].contains(&o);
            may.then_some(o)
        })
    }
    first(map, at, old).eq(first(map, at, new))
}

/// The objects that are thread `a`'s own (`first_reached`) are `b`'s.
fn same_own_objects(a: &Thread, b: &Thread) -> bool {
    own_objects(a).eq(own_objects(b))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{pointer_frame, program};
    use super::*;

    /// Whether `next`, canonicalised with `parent` as its base, kept the base's
    /// numbering. The canonicaliser checks itself (`check`): a state canonicalised
    /// incrementally is canonicalised afresh too and the two must agree (chunk ids,
    /// numbering, thread order), so a rule that lets through a state whose numbering
    /// changed makes the caller panic.
    fn kept_numbering(parent: &State, next: &State, symmetry: bool) -> bool {
        use crate::store::{Scratch, StateStore};
        let store = StateStore::new().with_symmetry(symmetry);
        let mut c = Canonicalizer::new();
        c.all_registers = true;
        c.incremental = true;
        c.check = true;
        let mut scratch = Scratch::default();
        store.insert_state(&mut c, &mut scratch, &program(), parent, true);
        let mut base = c.base_from_last_run(parent, &scratch.ids);
        assert!(base.is_some(), "the parent's numbering is kept as a base");
        c.swap_base(&mut base);
        store.insert_state(&mut c, &mut scratch, &program(), next, true);
        c.was_incremental()
    }

    fn ptr_to(o: ObjId) -> Val {
        Val::Ptr(make_ptr(o, 0))
    }

    /// Heap objects A, B, C (8 bytes each, B pointing to C) and threads whose first
    /// frames hold `regs[t]`; B and C are reached only through A when A points to B.
    /// With `ips[t]`, the thread's first frame stops at that instruction.
    fn heap_state(regs: &[&[Val]], ips: &[u32]) -> (State, [ObjId; 3]) {
        let mut mem = Memory::new();
        let a = mem.allocate(Object::new(8, ObjKind::Heap));
        let mut bo = Object::new(8, ObjKind::Heap);
        bo.ptrs.push(0);
        let b = mem.allocate(bo);
        let c = mem.allocate(Object::new(8, ObjKind::Heap));
        if let Some(o) = mem.get_mut(b) {
            o.data.copy_from_slice(&make_ptr(c, 0).to_le_bytes());
        }
        let mut st = State::new(mem);
        for (t, r) in regs.iter().enumerate() {
            let mut f = pointer_frame(r.to_vec());
            f.ip = ips.get(t).copied().unwrap_or(0);
            st.threads.push(Arc::new(Thread::new(f)));
        }
        (st, [a, b, c])
    }

    fn set_pointer(st: &mut State, from: ObjId, to: ObjId) {
        let o = st.memory.get_mut(from).expect("object");
        o.data.copy_from_slice(&make_ptr(to, 0).to_le_bytes());
        if o.ptrs.is_empty() {
            o.ptrs.push(0);
        }
    }

    /// A successor that changed only bytes keeps the numbering (the positive case the
    /// other rules are measured against).
    #[test]
    fn incremental_keeps_the_numbering_of_a_byte_change() {
        let (p, [a, ..]) = heap_state(&[&[ptr_to(1)]], &[]);
        let mut s = p.clone();
        s.memory.get_mut(a).expect("A").data[0] = 7;
        assert!(kept_numbering(&p, &s, false));
        let mut s = p.clone();
        Arc::make_mut(&mut s.threads[0]).phase = 3;
        assert!(kept_numbering(&p, &s, false));
    }

    /// `skip_base_once` (the join-array rule moved a slot) makes the next run number
    /// afresh without the check, and only that run: the one after keeps the base's
    /// numbering again, with the same chunk ids as the fresh run.
    #[test]
    fn a_skipped_base_is_skipped_once() {
        use crate::store::{Scratch, StateStore};
        let (p, [a, ..]) = heap_state(&[&[ptr_to(1)]], &[]);
        let mut s = p.clone();
        s.memory.get_mut(a).expect("A").data[0] = 7;
        let store = StateStore::new();
        let mut c = Canonicalizer::new();
        c.all_registers = true;
        c.incremental = true;
        c.check = true;
        let mut scratch = Scratch::default();
        store.insert_state(&mut c, &mut scratch, &program(), &p, true);
        let mut base = c.base_from_last_run(&p, &scratch.ids);
        c.swap_base(&mut base);
        c.skip_base_once();
        let fresh = store.insert_state(&mut c, &mut scratch, &program(), &s, true);
        assert!(!c.was_incremental(), "the skipped run numbers afresh");
        let again = store.insert_state(&mut c, &mut scratch, &program(), &s, true);
        assert!(c.was_incremental(), "the next run checks the base again");
        assert!(fresh.new && !again.new && fresh.id == again.id);
        assert_eq!(
            c.counts,
            (1, 1),
            "the skipped run did not count as one with a base"
        );
    }

    /// Rule 0: race data that appears changes the bytes of unchanged objects (a stack
    /// slot's `frame_private`), whatever the numbering.
    #[test]
    fn incremental_rule_0_race_data_that_appears() {
        let mut mem = Memory::new();
        let mut slot = Object::new(8, ObjKind::Stack);
        slot.frame_private = true;
        let slot = mem.allocate(slot);
        let mut p = State::new(mem);
        let mut f = pointer_frame(vec![]);
        f.allocas.push(slot);
        p.threads.push(Arc::new(Thread::new(f)));
        let mut s = p.clone();
        s.races = Some(Arc::new(crate::race::RaceState::new()));
        assert!(!kept_numbering(&p, &s, false));
    }

    /// Rule 1: a new thread, or an allocation (a new id past the end), renumbers.
    #[test]
    fn incremental_rule_1_a_new_thread_or_object_is_canonicalised_afresh() {
        let (p, [a, ..]) = heap_state(&[&[ptr_to(1)]], &[]);
        let mut s = p.clone();
        s.threads
            .push(Arc::new(Thread::new(pointer_frame(vec![ptr_to(a)]))));
        assert!(!kept_numbering(&p, &s, false));
        let mut s = p.clone();
        let d = s.memory.allocate(Object::new(8, ObjKind::Heap));
        let regs = vec![ptr_to(d), ptr_to(a)];
        Arc::make_mut(&mut s.threads[0]).frames[0].regs = Arc::new(regs);
        assert!(!kept_numbering(&p, &s, false));
    }

    /// Rule 2: an object the traversal numbered that now points elsewhere keeps the
    /// numbering only if its pointers reach the same objects first: pointing to an
    /// object numbered before it changes nothing, pointing to one nothing reached does.
    #[test]
    fn incremental_rule_2_a_pointer_that_reaches_another_object_first() {
        // Main points to A then C; A points to B (which points to C).
        let (mut p, [a, b, c]) = heap_state(&[&[]], &[]);
        Arc::make_mut(&mut p.threads[0]).frames[0].regs = Arc::new(vec![ptr_to(a), ptr_to(c)]);
        set_pointer(&mut p, a, b);
        // A now points to C, numbered before A's pointers are followed: B, which A's
        // step numbered, is no longer reached.
        let mut s = p.clone();
        set_pointer(&mut s, a, c);
        assert!(!kept_numbering(&p, &s, false), "B is no longer reached");
        // B points to A instead of C: A and C were numbered before B's turn.
        let mut s = p.clone();
        set_pointer(&mut s, b, a);
        assert!(kept_numbering(&p, &s, false));
    }

    /// Rule 2: an object that disappears (or appears) renumbers what named it.
    #[test]
    fn incremental_rule_2_an_object_that_disappears() {
        let (p, [a, ..]) = heap_state(&[&[ptr_to(1)]], &[]);
        let mut p = p;
        Arc::make_mut(&mut p.threads[0]).frames[0].regs = Arc::new(vec![ptr_to(a)]);
        let mut s = p.clone();
        s.memory.remove(a);
        assert!(!kept_numbering(&p, &s, false));
    }

    /// Rule 3: a thread whose roots reach another object first renumbers; one whose
    /// new root was numbered before its turn does not.
    #[test]
    fn incremental_rule_3_a_thread_that_reaches_another_object_first() {
        // Thread 0 points to A; thread 1 to B (and so C).
        let (p, [a, b, c]) = heap_state(&[&[], &[]], &[]);
        let mut p = p;
        Arc::make_mut(&mut p.threads[0]).frames[0].regs = Arc::new(vec![ptr_to(a)]);
        Arc::make_mut(&mut p.threads[1]).frames[0].regs = Arc::new(vec![ptr_to(b)]);
        let mut s = p.clone();
        Arc::make_mut(&mut s.threads[1]).frames[0].regs = Arc::new(vec![ptr_to(c), ptr_to(b)]);
        assert!(!kept_numbering(&p, &s, false), "C before B");
        let mut s = p.clone();
        Arc::make_mut(&mut s.threads[1]).frames[0].regs = Arc::new(vec![ptr_to(a), ptr_to(b)]);
        assert!(kept_numbering(&p, &s, false), "A was numbered by thread 0");
    }

    /// Rule 3 up to symmetry: a thread that now owns an object `main` reached is
    /// ordered right after `main` (`first_reached`), though its roots reach nothing new.
    #[test]
    fn incremental_rule_3_a_thread_that_owns_an_object_main_reached() {
        // Main points to A; threads 1 and 2 stop at instructions 0 and 1, so their keys
        // order them 1, 2 whatever their stack slots.
        let (p, [a, ..]) = heap_state(&[&[], &[], &[]], &[0, 0, 1]);
        let mut p = p;
        Arc::make_mut(&mut p.threads[0]).frames[0].regs = Arc::new(vec![ptr_to(a)]);
        let mut s = p.clone();
        Arc::make_mut(&mut s.threads[2]).frames[0].allocas = vec![a];
        assert!(!kept_numbering(&p, &s, true));
        // The same change without symmetry keeps the numbering.
        assert!(kept_numbering(&p, &s, false));
    }

    /// Rule 5 (symmetry): a thread's key reads the objects it leads to, so a change to
    /// an object another thread's key read can reorder the threads.
    #[test]
    fn incremental_rule_5_an_object_a_key_read() {
        // Threads 1 and 2 point to A and C; A's first byte orders them.
        let (p, [a, _, c]) = heap_state(&[&[], &[], &[]], &[]);
        let mut p = p;
        Arc::make_mut(&mut p.threads[1]).frames[0].regs = Arc::new(vec![ptr_to(a)]);
        Arc::make_mut(&mut p.threads[2]).frames[0].regs = Arc::new(vec![ptr_to(c)]);
        p.memory.get_mut(c).expect("C").data[0] = 5;
        let mut s = p.clone();
        s.memory.get_mut(a).expect("A").data[0] = 9;
        assert!(!kept_numbering(&p, &s, true), "thread 2 now sorts first");
        let mut s = p.clone();
        s.memory.get_mut(a).expect("A").data[0] = 1;
        assert!(kept_numbering(&p, &s, true), "the order stays");
    }

    /// A parent whose traversal up to symmetry permutes its threads gives a base once
    /// it is its representative: the numbering with the threads renamed, the keys
    /// under the new ids. Its successors keep that numbering when nothing moved, and
    /// only then (`check` compares each with a fresh canonicalisation, so a base with
    /// a wrong thread's step or key makes this panic).
    #[test]
    fn incremental_base_of_a_permuted_parent() {
        use crate::store::{Scratch, StateStore};
        // Threads 1 and 2 stop at instructions 1 and 0, so the keys put 2 before 1;
        // thread 1 points to A, thread 2 to C.
        let (p, [a, b, c]) = heap_state(&[&[], &[], &[]], &[0, 1, 0]);
        let mut p = p;
        Arc::make_mut(&mut p.threads[1]).frames[0].regs = Arc::new(vec![ptr_to(a)]);
        Arc::make_mut(&mut p.threads[2]).frames[0].regs = Arc::new(vec![ptr_to(c)]);
        let kept = |next: &dyn Fn(&State) -> State| {
            let store = StateStore::new().with_symmetry(true);
            let mut canon = Canonicalizer::new();
            canon.all_registers = true;
            canon.incremental = true;
            canon.check = true;
            let mut scratch = Scratch::default();
            let mut rep = p.clone();
            store.insert_state(&mut canon, &mut scratch, &program(), &rep, true);
            assert_eq!(canon.thread_order(), &[0, 2, 1], "the keys permute");
            canon.to_representative(&mut rep);
            let mut base = canon.base_from_last_run(&rep, &scratch.ids);
            assert!(base.is_some(), "the representative's numbering is a base");
            canon.swap_base(&mut base);
            let s = next(&rep);
            store.insert_state(&mut canon, &mut scratch, &program(), &s, true);
            canon.was_incremental()
        };
        // In the representative, thread 1 (old 2) points to C and thread 2 to A.
        assert!(kept(&|r: &State| {
            let mut s = r.clone();
            s.memory.get_mut(b).expect("B").data[0] = 3;
            s
        }));
        assert!(
            kept(&|r: &State| {
                let mut s = r.clone();
                Arc::make_mut(&mut s.threads[2]).frames[0].regs =
                    Arc::new(vec![ptr_to(a), ptr_to(c)]);
                s
            }),
            "C was numbered by thread 1's step, before thread 2's"
        );
        assert!(
            !kept(&|r: &State| {
                let mut s = r.clone();
                Arc::make_mut(&mut s.threads[1]).frames[0].regs =
                    Arc::new(vec![ptr_to(c), ptr_to(a)]);
                s
            }),
            "thread 1's step now reaches A first"
        );
        assert!(
            !kept(&|r: &State| {
                let mut s = r.clone();
                Arc::make_mut(&mut s.threads[1]).frames[0].ip = 2;
                s
            }),
            "the keys now order the threads the other way"
        );
    }

    /// Extension data holding pointers, in order.
    #[derive(Clone)]
    struct Pointers(Vec<u64>);

    impl ExtState for Pointers {
        fn clone_box(&self) -> Box<dyn ExtState> {
            Box::new(self.clone())
        }
        fn for_each_pointer(&self, f: &mut dyn FnMut(u64)) {
            self.0.iter().for_each(|&p| f(p));
        }
        fn serialize(&self, map: &mut dyn FnMut(u64) -> u64, out: &mut Vec<u8>) {
            write_len(out, self.0.len());
            for &p in &self.0 {
                out.extend_from_slice(&map(p).to_le_bytes());
            }
        }
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
        fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
            self
        }
    }

    /// Rule 4: extension data whose pointers reach another object first renumbers.
    #[test]
    fn incremental_rule_4_extension_data_that_reaches_another_object_first() {
        let (p, [a, b, c]) = heap_state(&[&[]], &[]);
        let mut p = p;
        p.ext = Some(Box::new(Pointers(vec![make_ptr(a, 0), make_ptr(b, 0)])));
        let mut s = p.clone();
        s.ext = Some(Box::new(Pointers(vec![make_ptr(c, 0), make_ptr(b, 0)])));
        assert!(!kept_numbering(&p, &s, false));
        let mut s = p.clone();
        s.ext = Some(Box::new(Pointers(vec![make_ptr(a, 4), make_ptr(b, 0)])));
        assert!(kept_numbering(&p, &s, false));
    }
}
