//! Canonical form of a state. Objects are renamed in the order a fixed traversal
//! reaches them (globals, then each thread's frames, then runtime data), so states that
//! differ only in allocation order or object numbering serialise identically.
//! Unreachable objects (garbage, dead stack slots nobody points to) are left out.

use super::reuse::{name_of, same_names, ArcCache};
use super::symmetry;
use crate::ir::{Program, FUNCTION_OBJECT_BASE};
use crate::memory::{read_u64, Memory, ObjId, ObjKind, Object};
use crate::race::reuse::{Context, RaceReuse};
use crate::race::RaceState;
use crate::state::{ExtState, ReturnTo, State, Thread, ThreadId, ThreadStatus};
use crate::value::{make_ptr, ptr_parts, Val};
use std::sync::Arc;

mod incremental;
use incremental::Numbering;
pub use incremental::{incremental_counts, Base};

/// One chunk of a serialised state.
#[derive(Clone, Copy, Debug)]
pub enum Chunk<'a> {
    Bytes(&'a [u8]),
    /// An unchanged object whose chunk id the store already knows.
    Known(u32),
}

/// The serialised state: a list of chunks, their bytes in one buffer.
#[derive(Default)]
pub struct Chunks {
    buf: Vec<u8>,
    /// End offset in `buf` of each byte chunk, or a known id.
    parts: Vec<Part>,
}

#[derive(Clone, Copy)]
enum Part {
    Bytes { end: usize, reuse: Reuse },
    Known(u32),
}

/// Where the chunk id of a byte chunk is remembered once the store has given it.
#[derive(Clone, Copy)]
enum Reuse {
    Nowhere,
    /// A pointer-free object: in its `chunk_cache`.
    Object(ObjId),
    /// A thread or a pointer-holding object: in the worker's cache, at this slot while
    /// it holds the `Arc` at this address (see `reuse.rs`).
    Thread(usize, usize),
    Pointers(usize, usize),
    /// Chunk `.2` of race data: in the worker's `RaceReuse`, at this slot while it
    /// holds the `Arc` at this address.
    Races(usize, usize, usize),
}

impl Chunks {
    pub fn iter(&self) -> impl Iterator<Item = Chunk<'_>> {
        let mut start = 0;
        self.parts.iter().map(move |p| match *p {
            Part::Bytes { end, .. } => {
                let s = &self.buf[start..end];
                start = end;
                Chunk::Bytes(s)
            }
            Part::Known(id) => Chunk::Known(id),
        })
    }
    /// Bytes serialised (chunks already known to the store not counted).
    pub fn byte_len(&self) -> usize {
        self.buf.len()
    }
    fn clear(&mut self) {
        self.buf.clear();
        self.parts.clear();
    }
    /// Chunks the store already knows as `ids` (tests of the store's tree alone).
    #[cfg(test)]
    pub(super) fn known(ids: &[u32]) -> Chunks {
        Chunks {
            buf: Vec::new(),
            parts: ids.iter().map(|&id| Part::Known(id)).collect(),
        }
    }
    fn end_chunk(&mut self) {
        self.end_reused_chunk(Reuse::Nowhere);
    }
    fn end_reused_chunk(&mut self, reuse: Reuse) {
        self.parts.push(Part::Bytes {
            end: self.buf.len(),
            reuse,
        });
    }
}

#[derive(Default)]
pub struct Canonicalizer {
    /// old id → new id (0 = not reached yet).
    map: Vec<u32>,
    order: Vec<ObjId>,
    pub chunks: Chunks,
    /// Serialise every register, not just the live ones (for states taken in the middle
    /// of a transition, where liveness is not recorded).
    pub all_registers: bool,
    /// Generation of the store whose cached object chunk ids may be used (0: none).
    pub cache_generation: u32,
    /// Canonicalise up to a permutation of threads (`symmetry.rs`).
    pub symmetry: bool,
    /// The threads in the order they are serialised (old ids), and each thread's new id.
    perm: Vec<ThreadId>,
    new_of: Vec<ThreadId>,
    /// The extension data with its threads renamed by `new_of`, when that is not the
    /// identity.
    permuted_ext: Option<Box<dyn ExtState>>,
    /// The race data with its threads renamed by `new_of`, when that is not the
    /// identity (`race/permute.rs`).
    permuted_races: Option<Arc<RaceState>>,
    /// After `run` up to symmetry: the start routine of each running thread whose place
    /// the keys decided (interchangeable with others of its routine), sorted.
    pub(super) free_starts: Vec<u32>,
    /// Scratch space reused across runs (symmetry keys).
    keys: symmetry::Keys,
    /// Scratch of `traverse_symmetric`: threads reached from `main`'s objects (with
    /// the number that reached them first) and the others.
    reached: Vec<(u32, ThreadId)>,
    free: Vec<ThreadId>,
    /// The ends of the race data's chunks.
    scratch_ends: Vec<usize>,
    /// Chunk ids of threads and pointer-holding objects the last states shared
    /// (`reuse.rs`); used only when `cache_generation` is set.
    thread_reuse: ArcCache<Thread>,
    object_reuse: ArcCache<Object>,
    /// Chunk ids of the race data the last states shared (`race/reuse.rs`), and the
    /// context of the present one.
    race_reuse: RaceReuse,
    race_context: Context,
    /// While a thread's roots are walked for the cache: every id reached, in order.
    logging: bool,
    log: Vec<ObjId>,
    /// Incremental canonicalisation (`swap_base`): on unless measuring without it.
    pub incremental: bool,
    /// The state whose successors are being canonicalised, canonicalised.
    base: Option<Box<Base>>,
    /// The next `run` numbers afresh without checking the base (`skip_base_once`).
    skip_base: bool,
    /// What the last `run` did: kept the base's numbering, or numbered by the plain or
    /// the symmetric traversal (or found the symmetric one refused).
    last: Last,
    /// The threads other than `main` the last traversal up to symmetry sorted by key,
    /// in key order (empty when it sorted none).
    sorted_free: Vec<ThreadId>,
    /// When the last traversal took each step: how many objects were numbered when it
    /// went through the pointers of the object numbered `k + 1` (`at[k]`), walked
    /// thread `t`'s roots (`thread_at[t]`) and the extension data's (`ext_at`).
    at: Vec<u32>,
    thread_at: Vec<u32>,
    ext_at: u32,
    /// After a run that kept the base's numbering: that numbering (`map` and the
    /// others are then stale).
    kept: Option<Arc<Numbering>>,
    /// Scratch of the incremental check: objects and threads that differ from the
    /// base, the threads whose keys were computed again, and lists of ids.
    changed: Vec<ObjId>,
    changed_threads: Vec<ThreadId>,
    rekeyed: Vec<ThreadId>,
    roots_a: Vec<ObjId>,
    roots_b: Vec<ObjId>,
    /// Runs with a base, and those that kept its numbering (for the benchmark).
    pub counts: (u64, u64),
    /// Test mode: every state canonicalised incrementally is canonicalised afresh too
    /// by `shadow`, and the two must agree (`StateStore::insert_state`).
    pub check: bool,
    pub(super) shadow: Option<Box<(Canonicalizer, super::Scratch)>>,
}

#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Last {
    #[default]
    None,
    Plain,
    Symmetric,
    /// The symmetric traversal gave up (extension data that cannot rename threads).
    Refused,
    Incremental,
}

const INVALID: u32 = u32::MAX;

impl Canonicalizer {
    pub fn new() -> Canonicalizer {
        Canonicalizer::default()
    }

    /// A canonicaliser, incremental or not, that (`check`) compares each incremental
    /// run with a full one (`interp`'s `Canonicalizer::for_search` reads the options).
    pub(crate) fn with_modes(incremental: bool, check: bool) -> Canonicalizer {
        let mut c = Canonicalizer::default();
        c.incremental = incremental;
        c.check = check;
        c
    }

    /// Serialise `st` canonically into `self.chunks`.
    pub fn run(&mut self, program: &Program, st: &State, include_output: bool) {
        let skip_base = std::mem::take(&mut self.skip_base);
        if self.incremental && self.base.is_some() && !skip_base {
            self.counts.0 += 1;
            if self.keeps_base_numbering(program, st) {
                self.counts.1 += 1;
                self.last = Last::Incremental;
                self.serialize_incremental(program, st, include_output);
                return;
            }
        }
        self.number(program, st);
        self.serialize(program, st, include_output);
    }

    /// The next `run` numbers its state afresh, without checking whether it keeps the
    /// base's numbering: the caller expects it would not (the join-array rule moved a
    /// slot, `symmetry::JoinArray::normalise`). Only what the check costs changes: a
    /// full numbering is always exact.
    pub(crate) fn skip_base_once(&mut self) {
        self.skip_base = true;
    }

    /// Number `st`'s objects and order its threads by a full traversal.
    fn number(&mut self, program: &Program, st: &State) {
        self.kept = None;
        self.last = if !(self.symmetry && symmetry::renamable(st)) {
            Last::Plain
        } else if self.traverse_symmetric(program, st) {
            Last::Symmetric
        } else {
            Last::Refused
        };
        if self.last != Last::Symmetric {
            self.traverse(program, st);
        }
    }

    fn begin_traversal(&mut self, st: &State) {
        self.map.clear();
        self.map.resize(st.memory.len(), 0);
        self.order.clear();
        self.perm.clear();
        self.new_of.clear();
        self.permuted_ext = None;
        self.permuted_races = None;
        self.free_starts.clear();
        self.sorted_free.clear();
        self.at.clear();
        self.thread_at.clear();
        self.thread_at.resize(st.threads.len(), 0);
        self.ext_at = 0;
        for g in 1..=st.memory.globals {
            self.map[g as usize] = g;
            self.order.push(g);
        }
    }

    /// Number the objects in the order a fixed traversal reaches them: globals, then
    /// each thread's roots in thread order, the extension data's pointers, then
    /// breadth-first through memory.
    fn traverse(&mut self, program: &Program, st: &State) {
        self.begin_traversal(st);
        let n = st.threads.len() as ThreadId;
        self.perm.extend(0..n);
        self.new_of.extend(0..n);
        for t in 0..n {
            self.reach_thread(program, st, t);
        }
        self.ext_at = self.order.len() as u32;
        if let Some(ext) = &st.ext {
            ext.for_each_pointer(&mut |p| self.reach(st, p));
        }
        let mut cursor = 0;
        self.breadth_first(st, &mut cursor);
    }

    /// The traversal up to thread symmetry (see `symmetry.rs`): `main`'s roots and what
    /// they reach come first. Then the other threads that this has reached (through a
    /// kept handle, a queue node on their stack...) in the order it reached them, each
    /// followed by what it reaches; then the threads not reached, sorted by
    /// `symmetry::Keys`, where among threads with equal keys the one that what is
    /// numbered so far reaches first goes first (ties keep their order). Every step
    /// depends only on the state up to the numbering of objects and threads, so two
    /// states that are each other with threads renamed get the same order. False when
    /// the extension data cannot rename its threads (the caller then numbers without
    /// symmetry).
    fn traverse_symmetric(&mut self, program: &Program, st: &State) -> bool {
        self.begin_traversal(st);
        let n = st.threads.len();
        let mut cursor = 0;
        self.perm.push(0);
        self.reach_thread(program, st, 0);
        self.breadth_first(st, &mut cursor);
        let mut reached = std::mem::take(&mut self.reached);
        let mut free = std::mem::take(&mut self.free);
        reached.clear();
        free.clear();
        for t in 1..n as ThreadId {
            match self.first_reached(st, t) {
                Some(k) => reached.push((k, t)),
                None => free.push(t),
            }
        }
        reached.sort_unstable();
        for &(_, t) in &reached {
            self.perm.push(t);
            self.reach_thread(program, st, t);
        }
        self.breadth_first(st, &mut cursor);
        if free.len() > 1 {
            self.keys.sort(program, st, self.all_registers, &mut free);
            self.sorted_free.extend_from_slice(&free);
            self.free_starts.extend(
                free.iter()
                    .filter_map(|&t| st.threads[t as usize].frames.first().map(|f| f.func)),
            );
            self.free_starts.sort_unstable();
        }
        let mut i = 0;
        while i < free.len() {
            let mut j = i + 1;
            while j < free.len() && self.keys.tied(free[i], free[j]) {
                j += 1;
            }
            // Equal keys: the first reached from what is numbered so far, one by one.
            while i < j {
                let at = |t: ThreadId| self.first_reached(st, t).unwrap_or(INVALID);
                // The first of the smallest: ties keep their order.
                let best = (i..j).min_by_key(|&k| (at(free[k]), k)).unwrap_or(i);
                free[i..=best].rotate_right(1);
                let t = free[i];
                self.perm.push(t);
                self.reach_thread(program, st, t);
                self.breadth_first(st, &mut cursor);
                i += 1;
            }
        }
        self.reached = reached;
        self.free = free;
        self.new_of.resize(n, 0);
        for (new, &old) in self.perm.iter().enumerate() {
            self.new_of[old as usize] = new as ThreadId;
        }
        let identity = is_identity(&self.perm);
        let ext = match &st.ext {
            Some(ext) if !identity => match ext.permute_threads(&self.new_of) {
                Some(e) => Some(e),
                None => return false,
            },
            _ => None,
        };
        self.ext_at = self.order.len() as u32;
        if let Some(e) = ext.as_deref().or(st.ext.as_deref()) {
            e.for_each_pointer(&mut |p| self.reach(st, p));
        }
        self.permuted_ext = ext;
        // Clocks and access histories are thread-indexed: renamed with the threads.
        self.permuted_races = match &st.races {
            Some(r) if !identity => Some(Arc::new(r.with_threads_renamed(&self.new_of))),
            _ => None,
        };
        self.breadth_first(st, &mut cursor);
        true
    }

    /// The smallest number given so far to an object that is thread `t`'s own (its
    /// handle, stack slots, thread-local copies).
    fn first_reached(&self, st: &State, t: ThreadId) -> Option<u32> {
        own_objects(&st.threads[t as usize])
            .filter_map(|o| self.map.get(o as usize).copied())
            .filter(|&k| k != 0 && k != INVALID)
            .min()
    }

    /// What a cached chunk's bytes depend on besides contents and names.
    fn reuse_flags(&self, st: &State) -> u8 {
        self.all_registers as u8 | (st.races.is_some() as u8) << 1
    }

    /// Reach thread `tid`'s roots (`walk_thread`); a thread unchanged since the worker
    /// last walked it reaches the same ids, remembered.
    fn reach_thread(&mut self, program: &Program, st: &State, tid: ThreadId) {
        self.thread_at[tid as usize] = self.order.len() as u32;
        if self.cache_generation == 0 {
            return self.walk_thread(program, st, tid);
        }
        let t = &st.threads[tid as usize];
        let flags = self.reuse_flags(st);
        if let Some(e) = self.thread_reuse.get(t, flags) {
            let roots = std::mem::take(&mut e.roots);
            for &o in &roots {
                // An id numbered already: `reach_obj` would change nothing.
                if self.map.get(o as usize).is_some_and(|&n| n != 0) {
                    continue;
                }
                self.reach_obj(st, o);
            }
            if let Some(e) = self.thread_reuse.get(t, flags) {
                e.roots = roots;
            }
            return;
        }
        self.log.clear();
        self.logging = true;
        self.walk_thread(program, st, tid);
        self.logging = false;
        let mut log = std::mem::take(&mut self.log);
        first_reaches(&mut log);
        self.thread_reuse.insert(t, flags, &log);
        self.log = log;
    }

    /// Reach thread `tid`'s roots (`for_each_root`).
    fn walk_thread(&mut self, program: &Program, st: &State, tid: ThreadId) {
        let t = &st.threads[tid as usize];
        for_each_root(program, t, self.all_registers, |o| self.reach_obj(st, o));
    }

    /// Go on breadth-first through memory from `order[*cursor]`.
    fn breadth_first(&mut self, st: &State, cursor: &mut usize) {
        while *cursor < self.order.len() {
            let id = self.order[*cursor];
            *cursor += 1;
            self.at.push(self.order.len() as u32);
            if let Some(o) = st.memory.get(id) {
                for &off in &o.ptrs {
                    let p = read_u64(&o.data, off);
                    self.reach(st, p);
                }
            }
        }
    }

    /// After `run`: make `st` the state its chunks describe, up to object numbering:
    /// drop its dead objects (`collect_garbage`) and put its threads in the order they
    /// were serialised, so a search holds the same thread order whether it keeps a
    /// state whole or rebuilds it from the store (moves name threads by that order).
    pub fn to_representative(&self, st: &mut State) {
        self.collect_garbage(st);
        if !is_identity(&self.perm) {
            let ext = self.permuted_ext.clone();
            let races = self.permuted_races.clone();
            *st = st.with_threads_renamed(&self.new_of, ext, races);
        }
    }

    /// After `run`: the old id of each thread in the order it was serialised (a
    /// state rebuilt from the chunks has thread `i` = `order()[i]` of this state).
    pub fn thread_order(&self) -> &[ThreadId] {
        &self.perm
    }

    /// After `run`: drop dead objects (freed heap blocks, returned stack slots) that
    /// nothing points to any more. They are not part of the canonical state, and keeping
    /// them would make memory grow along every path that calls functions.
    pub fn collect_garbage(&self, st: &mut State) {
        // By index, without collecting: this runs on every stored state and most
        // have nothing to drop.
        let map = self.kept.as_ref().map_or(&self.map, |num| &num.map);
        for id in st.memory.globals + 1..st.memory.len() as ObjId {
            let unreached = map.get(id as usize).is_none_or(|&m| m == 0);
            if unreached && st.memory.get(id).is_some_and(|o| o.freed) {
                st.memory.remove(id);
            }
        }
    }

    fn reach(&mut self, st: &State, p: u64) {
        let (obj, _) = ptr_parts(p);
        self.reach_obj(st, obj);
    }

    #[inline]
    fn reach_obj(&mut self, st: &State, obj: ObjId) {
        if self.logging {
            self.log.push(obj);
        }
        if obj == 0
            || obj >= FUNCTION_OBJECT_BASE
            || (obj as usize) >= self.map.len()
            || self.map[obj as usize] != 0
        {
            return;
        }
        if st.memory.get(obj).is_none() {
            self.map[obj as usize] = INVALID;
            return;
        }
        self.order.push(obj);
        self.map[obj as usize] = self.order.len() as u32;
    }

    #[inline]
    fn map_ptr(map: &[u32], p: u64) -> u64 {
        let (obj, off) = ptr_parts(p);
        if obj == 0 || obj >= FUNCTION_OBJECT_BASE {
            return p;
        }
        match map.get(obj as usize) {
            Some(&n) if n != 0 => make_ptr(n, off),
            _ => make_ptr(INVALID, off),
        }
    }

    /// After the store interned the chunks of the last `run` of `st` as `ids`:
    /// remember the ids of its pointer-free objects, threads and pointer-holding
    /// objects for the next states that share them.
    pub(super) fn remember_ids(&mut self, st: &State, ids: &[u32]) {
        let generation = (self.cache_generation as u64) << 32;
        for (part, &id) in self.chunks.parts.iter().zip(ids) {
            let Part::Bytes { reuse, .. } = *part else {
                continue;
            };
            let entry = match reuse {
                Reuse::Nowhere => continue,
                Reuse::Object(obj) => {
                    if let Some(o) = st.memory.get(obj) {
                        o.chunk_cache.set(generation | id as u64);
                    }
                    continue;
                }
                Reuse::Thread(slot, at) => self
                    .thread_reuse
                    .at(slot, at as *const Thread)
                    .map(|e| &mut e.chunk),
                Reuse::Pointers(slot, at) => self
                    .object_reuse
                    .at(slot, at as *const Object)
                    .map(|e| &mut e.chunk),
                Reuse::Races(slot, at, index) => {
                    let generation = self.cache_generation;
                    self.race_reuse
                        .remember(slot, at as *const RaceState, index, generation, id);
                    continue;
                }
            };
            if let Some(c) = entry {
                *c = generation | id as u64;
            }
        }
    }

    fn serialize(&mut self, program: &Program, st: &State, include_output: bool) {
        let map = std::mem::take(&mut self.map);
        self.chunks.clear();
        // Every list is written with its length first, so the bytes of one list can never
        // be read as the start of the next (the serialisation is prefix-free). The key is
        // the sequence of chunk ids; the first chunk says how many thread and object
        // chunks follow and whether an extension chunk ends it, so chunks cannot shift
        // from one part to another either.
        let objects = self
            .order
            .iter()
            .filter(|&&id| st.memory.get(id).is_some_and(|o| !o.constant))
            .count();
        self.write_process(st, objects, include_output);
        for i in 0..self.perm.len() {
            self.thread_part(program, st, self.perm[i], &map);
        }
        for i in 0..self.order.len() {
            let id = self.order[i];
            if st.memory.get(id).is_some_and(|o| !o.constant) {
                self.object_part(st, id, &map);
            }
        }
        self.tail_parts(st, &map);
        self.map = map;
    }

    /// The process-wide chunk.
    fn write_process(&mut self, st: &State, objects: usize, include_output: bool) {
        // `store/decode.rs` reads this format back: change both together.
        // The mark that thread ids are in memory only decides whether symmetry may
        // rename the state (`symmetry::renamable`); without symmetry it changes no
        // behaviour, and storing it would split each state reached before and after a
        // program's first condition wait in two.
        let thread_ids_in_memory = self.symmetry && st.thread_ids_in_memory;
        let b = &mut self.chunks.buf;
        write_len(b, st.threads.len());
        write_len(b, objects);
        b.push(
            st.ext.is_some() as u8
                | (st.races.is_some() as u8) << 1
                | (st.exit_code.is_some() as u8) << 2
                | (st.atomic_owner.is_some() as u8) << 3
                | (include_output as u8) << 4
                | (thread_ids_in_memory as u8) << 5,
        );
        if let Some(c) = st.exit_code {
            b.extend_from_slice(&c.to_le_bytes());
        }
        b.extend_from_slice(&st.next_key.to_le_bytes());
        if let Some(t) = st.atomic_owner {
            let t = self.new_of.get(t as usize).copied().unwrap_or(t);
            b.extend_from_slice(&t.to_le_bytes());
        }
        write_len(b, st.atexit.len());
        for a in &st.atexit {
            b.extend_from_slice(&a.to_le_bytes());
        }
        if include_output {
            write_len(b, st.output.len());
            b.extend_from_slice(&st.output);
        }
        self.chunks.end_chunk();
    }

    /// Thread `tid`'s chunk, its id from the worker's cache while the numbers it names
    /// are unchanged.
    #[inline(always)]
    fn thread_part(&mut self, program: &Program, st: &State, tid: ThreadId, map: &[u32]) {
        let generation = self.cache_generation as u64;
        let flags = self.reuse_flags(st);
        let out = &mut self.chunks;
        let t = &st.threads[tid as usize];
        let mut reuse = Reuse::Nowhere;
        if generation != 0 {
            let slot = ArcCache::slot_of(t);
            if let Some(e) = self.thread_reuse.get(t, flags) {
                if e.chunk >> 32 == generation && same_names(map, e.roots.iter().copied(), &e.names)
                {
                    out.parts.push(Part::Known(e.chunk as u32));
                    return;
                }
                e.names.clear();
                e.names.extend(e.roots.iter().map(|&o| name_of(map, o)));
                e.chunk = 0;
                reuse = Reuse::Thread(slot, Arc::as_ptr(t) as usize);
            }
        }
        write_thread(&mut out.buf, program, t, map, self.all_registers);
        out.end_reused_chunk(reuse);
    }

    /// The chunk of object `id` (not a constant), its id from the object or the
    /// worker's cache while the numbers it names are unchanged.
    #[inline(always)]
    fn object_part(&mut self, st: &State, id: ObjId, map: &[u32]) {
        let generation = self.cache_generation as u64;
        let flags = self.reuse_flags(st);
        let out = &mut self.chunks;
        let Some(o) = st.memory.get(id) else { return };
        let mut reuse = Reuse::Nowhere;
        if generation != 0 && o.ptrs.is_empty() {
            let c = o.chunk_cache.get();
            if c >> 32 == generation {
                out.parts.push(Part::Known(c as u32));
                return;
            }
            reuse = Reuse::Object(id);
        } else if let (true, Some(arc)) = (generation != 0, st.memory.get_arc(id)) {
            let targets = || {
                o.ptrs
                    .iter()
                    .map(|&off| ptr_parts(read_u64(&o.data, off)).0)
            };
            let e = match self.object_reuse.get(arc, flags) {
                Some(e) => e,
                None => {
                    let slot = self.object_reuse.insert(arc, flags, &[]);
                    self.object_reuse
                        .at(slot, Arc::as_ptr(arc))
                        .expect("just inserted")
                }
            };
            if e.chunk >> 32 == generation && same_names(map, targets(), &e.names) {
                out.parts.push(Part::Known(e.chunk as u32));
                return;
            }
            e.names.clear();
            e.names.extend(targets().map(|o| name_of(map, o)));
            e.chunk = 0;
            reuse = Reuse::Pointers(ArcCache::slot_of(arc), Arc::as_ptr(arc) as usize);
        }
        let b = &mut out.buf;
        let kind = match o.kind {
            ObjKind::Global(_) => 0u8,
            ObjKind::ThreadLocal(_) => 1,
            ObjKind::Stack => 2,
            ObjKind::Heap => 3,
            ObjKind::Internal => 4,
        };
        // Whether race detection ignores a stack slot (`Object::frame_private`)
        // follows from the lost allocation site: kept while races are tracked.
        let frame_private = o.frame_private && st.races.is_some();
        b.push(kind | (o.freed as u8) << 3 | (o.shared as u8) << 4 | (frame_private as u8) << 5);
        // A global's index follows from its id; a thread's copy names its global.
        if let ObjKind::ThreadLocal(g) = o.kind {
            b.extend_from_slice(&g.to_le_bytes());
        }
        // A byte of its own: shifted into the flags byte, families 0 and 0xE0 collided.
        b.push(o.alloc_family);
        write_len(b, o.data.len());
        let start = b.len();
        b.extend_from_slice(&o.data);
        for &off in &o.ptrs {
            let p = read_u64(&o.data, off);
            let q = Self::map_ptr(map, p);
            let at = start + off as usize;
            b[at..at + 8].copy_from_slice(&q.to_le_bytes());
        }
        write_len(b, o.ptrs.len());
        for &off in &o.ptrs {
            b.extend_from_slice(&off.to_le_bytes());
        }
        write_undef_mask(b, &o.undef);
        out.end_reused_chunk(reuse);
    }

    /// The chunks after the objects': extension data, then race data.
    fn tail_parts(&mut self, st: &State, map: &[u32]) {
        let generation = self.cache_generation as u64;
        let out = &mut self.chunks;
        if let Some(ext) = self.permuted_ext.as_deref().or(st.ext.as_deref()) {
            let mut f = |p: u64| Self::map_ptr(map, p);
            ext.serialize(&mut f, &mut out.buf);
            out.end_chunk();
        }
        // Race detection's clocks and access histories (see `crate::race`), with their
        // threads renamed as the thread list was (`permuted_races`): thread `new` of
        // the renamed data is thread `perm[new]` of `st`.
        let permuted = self.permuted_races.is_some();
        let Some(races) = self.permuted_races.as_ref().or(st.races.as_ref()) else {
            return;
        };
        let perm = &self.perm;
        let thread = |t: u32| {
            let old = if permuted {
                perm.get(t as usize).copied()
            } else {
                Some(t)
            };
            old.and_then(|o| st.threads.get(o as usize))
        };
        let rename = |o: ObjId| {
            map.get(o as usize)
                .copied()
                .filter(|&n| n != 0 && n != INVALID)
        };
        let running = |t: u32| thread(t).is_some_and(|t| t.status.is_running());
        let live = |t: u32| {
            thread(t).is_some_and(|t| match t.status {
                ThreadStatus::Running => true,
                ThreadStatus::Finished(_) => !t.joined && !t.detached,
                ThreadStatus::Stuck => false,
            })
        };
        // Unchanged race data in the same context: its chunk ids are known.
        // (A renamed copy is new each time: nothing to reuse.)
        let reusing = generation != 0 && !permuted && self.race_reuse.wanted();
        if reusing {
            let context = &mut self.race_context;
            context.clear();
            context.push(st.threads.len() as u32);
            for t in 0..st.threads.len() as u32 {
                context.push(running(t) as u32 | (live(t) as u32) << 1);
            }
            races.for_each_object(|o| context.push(rename(o).unwrap_or(INVALID)));
            let generation = self.cache_generation;
            let hit = match self.race_reuse.known(races, context, generation) {
                Some(ids) => {
                    out.parts.extend(ids.map(Part::Known));
                    true
                }
                None => false,
            };
            self.race_reuse.note(hit);
            if hit {
                return;
            }
        }
        let mut ends = std::mem::take(&mut self.scratch_ends);
        ends.clear();
        let heap = |o: ObjId| st.memory.get(o).is_some_and(|o| o.kind == ObjKind::Heap);
        races.serialize(&rename, &heap, &running, &live, &mut out.buf, &mut ends);
        let at = Arc::as_ptr(races) as usize;
        let slot = reusing.then(|| {
            self.race_reuse
                .insert(races, &self.race_context, ends.len())
        });
        out.parts
            .extend(ends.iter().enumerate().map(|(i, &end)| Part::Bytes {
                end,
                reuse: slot.map_or(Reuse::Nowhere, |s| Reuse::Races(s, at, i)),
            }));
        self.scratch_ends = ends;
    }
}

/// The objects that are thread `t`'s own: its handle, stack slots and thread-local
/// copies.
fn own_objects(t: &Thread) -> impl Iterator<Item = ObjId> + '_ {
    let frames = t.frames.iter();
    std::iter::once(t.handle)
        .chain(frames.flat_map(|f| f.allocas.iter().chain(f.varargs.iter()).copied()))
        .chain(t.tls.iter().map(|&(_, o)| o))
}

/// Whether `order` (old thread ids in their new order) renames no thread.
fn is_identity(order: &[ThreadId]) -> bool {
    order.iter().enumerate().all(|(i, &t)| i as ThreadId == t)
}

/// Every object id the traversal reaches from thread `t`, in order (null and repeats
/// included): its handle, then per frame the live registers' pointers and its stack
/// slots, thread-local copies, key values and results. Every id `write_thread` renames
/// is among them (the cache in `reuse.rs` relies on it).
fn for_each_root(program: &Program, t: &Thread, all_registers: bool, mut f: impl FnMut(ObjId)) {
    f(t.handle);
    for fr in &t.frames {
        for_each_reg(program, fr, all_registers, |v| {
            v.for_each_pointer(&mut |p| f(ptr_parts(p).0))
        });
        for &a in fr.allocas.iter().chain(fr.varargs.iter()) {
            f(a);
        }
    }
    for &(_, o) in &t.tls {
        f(o);
    }
    for (_, v) in &t.specific {
        v.for_each_pointer(&mut |p| f(ptr_parts(p).0));
    }
    if let ThreadStatus::Finished(e) = &t.status {
        e.value.for_each_pointer(&mut |p| f(ptr_parts(p).0));
    }
    let pending = t.pending_exit.iter().map(|e| &e.value);
    for v in t.callback_result.iter().chain(pending) {
        v.for_each_pointer(&mut |p| f(ptr_parts(p).0));
    }
}

/// Keep only the first reach of each id, and no null: reaching null, or an id a
/// second time, changes nothing, and the new number of null is always 0 (`name_of`),
/// so a replay of the roots and the names check need neither.
fn first_reaches(log: &mut Vec<ObjId>) {
    let mut kept = 0;
    for i in 0..log.len() {
        let o = log[i];
        if o != 0 && !log[..kept].contains(&o) {
            log[kept] = o;
            kept += 1;
        }
    }
    log.truncate(kept);
}

/// One thread: status, progress, frames (with live registers and stack slots), thread-
/// local copies, key values and its handle object, pointers and objects renamed by `map`.
pub(super) fn write_thread(
    b: &mut Vec<u8>,
    program: &Program,
    t: &crate::state::Thread,
    map: &[u32],
    all_registers: bool,
) {
    let rename = |o: ObjId| map.get(o as usize).copied().unwrap_or(INVALID);
    match &t.status {
        ThreadStatus::Running => b.push(0),
        ThreadStatus::Finished(e) => {
            b.push(1);
            write_exit_value(b, map, e);
        }
        ThreadStatus::Stuck => b.push(2),
    }
    b.extend_from_slice(&t.phase.to_le_bytes());
    b.push(t.detached as u8 | (t.joined as u8) << 1);
    match &t.callback_result {
        Some(v) => {
            b.push(1);
            write_val(b, map, v);
        }
        None => b.push(0),
    }
    match &t.pending_exit {
        Some(e) => {
            b.push(1);
            write_exit_value(b, map, e);
        }
        None => b.push(0),
    }
    write_len(b, t.frames.len());
    for f in &t.frames {
        b.extend_from_slice(&f.func.to_le_bytes());
        b.extend_from_slice(&f.block.to_le_bytes());
        b.extend_from_slice(&f.ip.to_le_bytes());
        match f.ret {
            ReturnTo::Caller => b.push(0),
            ReturnTo::CallerEndsAtomic => b.push(1),
            ReturnTo::Native { phase } => {
                b.push(2);
                b.extend_from_slice(&phase.to_le_bytes());
            }
            ReturnTo::Nothing => b.push(3),
        }
        // The count goes before the values: one walk over the live registers, and the
        // count's byte (a single one below 128, as `write_len` writes it) filled in.
        let at = b.len();
        b.push(0);
        let mut regs = 0usize;
        for_each_reg(program, f, all_registers, |v| {
            regs += 1;
            write_val(b, map, v)
        });
        if regs < 0x80 {
            b[at] = regs as u8;
        } else {
            let mut len = Vec::new();
            write_len(&mut len, regs);
            b.splice(at..at + 1, len);
        }
        write_undef_regs(b, program, f, all_registers);
        // In the frame's order (not sorted): the objects were numbered in the order the
        // traversal reached them, which follows this list, so a state rebuilt from
        // these bytes numbers its successors the same way.
        let allocas = || f.allocas.iter().map(|&a| rename(a)).filter(|&n| n != 0);
        write_len(b, allocas().count());
        for a in allocas() {
            b.extend_from_slice(&a.to_le_bytes());
        }
        // The varargs area apart: it is not an alloca (setjmp looks for its marker
        // among the allocas only).
        match f.varargs.map(rename) {
            Some(n) if n != 0 => {
                b.push(1);
                b.extend_from_slice(&n.to_le_bytes());
            }
            _ => b.push(0),
        }
    }
    write_len(b, t.tls.len());
    for (g, o) in &t.tls {
        b.extend_from_slice(&g.to_le_bytes());
        b.extend_from_slice(&rename(*o).to_le_bytes());
    }
    write_len(b, t.specific.len());
    for (k, v) in &t.specific {
        b.extend_from_slice(&k.to_le_bytes());
        write_val(b, map, v);
    }
    let handle = if t.handle == 0 { 0 } else { rename(t.handle) };
    b.extend_from_slice(&handle.to_le_bytes());
}

/// A list length as LEB128: short for the usual small lists, and prefix-free.
#[inline]
pub(super) fn write_len(b: &mut Vec<u8>, mut n: usize) {
    while n >= 0x80 {
        b.push(n as u8 | 0x80);
        n >>= 7;
    }
    b.push(n as u8);
}

/// The registers of a frame that belong to the state: the live ones where the frame
/// stopped, or all of them.
#[inline]
pub(super) fn for_each_reg(
    program: &Program,
    f: &crate::state::Frame,
    all: bool,
    mut visit: impl FnMut(&Val),
) {
    if all {
        f.regs.iter().for_each(visit);
        return;
    }
    if let Some(body) = &program.functions[f.func as usize].body {
        if (f.block as usize) < body.blocks.len()
            && (f.ip as usize) < body.blocks[f.block as usize].insts.len()
        {
            for &r in body.live.live_at(f.block, f.ip) {
                if let Some(v) = f.regs.get(r as usize) {
                    visit(v);
                }
            }
        }
    }
}

/// An object's definedness mask (as long as its data, or empty: all defined),
/// compactly: a 0 for "all defined", else a 1, two bits per byte (defined, wholly
/// undefined, partly undefined) and then the masks of the partly undefined bytes. Most
/// masked objects are records with a few never-written padding bytes.
fn write_undef_mask(b: &mut Vec<u8>, undef: &[u8]) {
    if undef.is_empty() {
        b.push(0);
        return;
    }
    b.push(1);
    for chunk in undef.chunks(4) {
        let mut packed = 0u8;
        for (i, &m) in chunk.iter().enumerate() {
            let class = match m {
                0 => 0u8,
                0xff => 1,
                _ => 2,
            };
            packed |= class << (2 * i);
        }
        b.push(packed);
    }
    b.extend(undef.iter().filter(|&&m| m != 0 && m != 0xff));
}

/// The undefined bits of the frame's registers that belong to the state (see
/// `for_each_reg`), as (register, shadow) pairs after their count; origins are not
/// state (a replay recomputes them).
fn write_undef_regs(b: &mut Vec<u8>, program: &Program, f: &crate::state::Frame, all: bool) {
    if f.undef.is_empty() {
        b.push(0);
        return;
    }
    let live = |r: u32| {
        all || program.functions[f.func as usize]
            .body
            .as_ref()
            .is_some_and(|body| {
                (f.block as usize) < body.blocks.len()
                    && (f.ip as usize) < body.blocks[f.block as usize].insts.len()
                    && body.live.live_at(f.block, f.ip).contains(&r)
            })
    };
    let kept: Vec<&(u32, crate::definedness::Undef)> =
        f.undef.iter().filter(|(r, _)| live(*r)).collect();
    write_len(b, kept.len());
    for (r, u) in kept {
        b.extend_from_slice(&r.to_le_bytes());
        // A shadow holds no pointers: no renumbering.
        write_val(b, &[], &u.shadow);
    }
}

/// A thread's result and its undefined bits (a joiner can still read them).
fn write_exit_value(b: &mut Vec<u8>, map: &[u32], e: &crate::state::ExitValue) {
    write_val(b, map, &e.value);
    match &e.undef {
        // A shadow holds no pointers: no renumbering.
        Some(u) => {
            b.push(1);
            write_val(b, &[], &u.shadow);
        }
        None => b.push(0),
    }
}

fn write_val(b: &mut Vec<u8>, map: &[u32], v: &Val) {
    match v {
        Val::Int(x) => {
            if *x <= u64::MAX as u128 {
                b.push(1);
                b.extend_from_slice(&(*x as u64).to_le_bytes());
            } else {
                b.push(2);
                b.extend_from_slice(&x.to_le_bytes());
            }
        }
        Val::Wide(l) => {
            b.push(7);
            write_len(b, l.len());
            for x in l.iter() {
                b.extend_from_slice(&x.to_le_bytes());
            }
        }
        Val::Ptr(p) => {
            b.push(3);
            b.extend_from_slice(&Canonicalizer::map_ptr(map, *p).to_le_bytes());
        }
        Val::PtrLanes(x, lanes) => {
            b.push(8);
            b.push(*lanes);
            for i in 0..2 {
                let v = (x >> (64 * i)) as u64;
                let v = if lanes >> i & 1 != 0 {
                    Canonicalizer::map_ptr(map, v)
                } else {
                    v
                };
                b.extend_from_slice(&v.to_le_bytes());
            }
        }
        Val::F32(x) => {
            b.push(4);
            b.extend_from_slice(&x.to_le_bytes());
        }
        Val::F64(x) => {
            b.push(5);
            b.extend_from_slice(&x.to_le_bytes());
        }
        Val::Agg(l) => {
            b.push(6);
            write_len(b, l.len());
            for x in l.iter() {
                write_val(b, map, x);
            }
        }
    }
}

#[cfg(test)]
pub(in crate::store) mod tests {
    //! The canonical form is exact: distinct states give distinct keys, even when the
    //! bytes of one list could pass for the bytes of the next.
    use super::*;
    use crate::ir::Program;
    use crate::memory::{Memory, Object};
    use crate::state::{Frame, ReturnTo, Thread};
    use std::sync::Arc;

    /// A state built from plain lists, so tests can vary one list at a time.
    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    struct Desc {
        atexit: Vec<u64>,
        output: Vec<u8>,
        /// Bytes of each global object.
        objects: Vec<Vec<u8>>,
        threads: Vec<ThreadDesc>,
    }

    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    struct ThreadDesc {
        /// Per frame: (function, registers, number of allocas).
        frames: Vec<(u32, Vec<u64>, usize)>,
        /// (global id, object size) of each thread-local copy.
        tls: Vec<(u32, usize)>,
        specific: Vec<(u32, u64)>,
    }

    pub(super) fn program() -> Program {
        Program::default()
    }

    fn build(d: &Desc) -> State {
        let mut mem = Memory::new();
        for (i, bytes) in d.objects.iter().enumerate() {
            let mut o = Object::new(bytes.len(), ObjKind::Global(i as u32));
            o.data.clone_from(bytes);
            mem.allocate(o);
        }
        mem.globals = d.objects.len() as u32;
        let mut st = State::new(mem);
        st.atexit.clone_from(&d.atexit);
        st.output = Arc::new(d.output.clone());
        for t in &d.threads {
            let mut frames = Vec::new();
            for (func, regs, allocas) in &t.frames {
                let allocas = (0..*allocas)
                    .map(|_| st.memory.allocate(Object::new(1, ObjKind::Stack)))
                    .collect();
                frames.push(Frame {
                    func: *func,
                    block: 0,
                    ip: 0,
                    regs: Arc::new(regs.iter().map(|&r| Val::Int(r as u128)).collect()),
                    undef: Vec::new(),
                    allocas,
                    varargs: None,
                    ret: ReturnTo::Caller,
                });
            }
            let mut th = Thread::new(frames.first().cloned().unwrap_or(Frame {
                func: 0,
                block: 0,
                ip: 0,
                regs: Arc::new(Vec::new()),
                undef: Vec::new(),
                allocas: Vec::new(),
                varargs: None,
                ret: ReturnTo::Caller,
            }));
            th.frames = frames;
            for &(g, size) in &t.tls {
                let o = st
                    .memory
                    .allocate(Object::new(size, ObjKind::ThreadLocal(g)));
                th.tls.push((g, o));
            }
            th.specific = t
                .specific
                .iter()
                .map(|&(k, v)| (k, Val::Int(v as u128)))
                .collect();
            st.threads.push(Arc::new(th));
        }
        st
    }

    /// The state's key: its chunks, in order (what the store interns, chunk by chunk).
    fn key(d: &Desc) -> Vec<Vec<u8>> {
        let mut c = Canonicalizer::new();
        c.all_registers = true;
        c.run(&program(), &build(d), true);
        c.chunks
            .iter()
            .map(|ch| match ch {
                Chunk::Bytes(b) => b.to_vec(),
                Chunk::Known(_) => unreachable!("no store generation: nothing is cached"),
            })
            .collect()
    }

    /// xorshift64*: deterministic, so a failure reproduces.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    // Values come from tiny alphabets whose encodings look alike (a function pointer of
    // 0x0101.. is eight 0x01 output bytes), so lists that run into each other collide
    // often if lengths are not written.
    const WORD: u64 = 0x0101_0101_0101_0101;

    fn small_list<T>(r: &mut Rng, max: u64, mut item: impl FnMut(&mut Rng) -> T) -> Vec<T> {
        (0..r.below(max + 1)).map(|_| item(r)).collect()
    }

    fn random_thread(r: &mut Rng) -> ThreadDesc {
        ThreadDesc {
            frames: small_list(r, 2, |r| {
                (
                    r.below(2) as u32,
                    small_list(r, 2, |r| [0, 1, WORD][r.below(3) as usize]),
                    r.below(2) as usize,
                )
            }),
            tls: small_list(r, 2, |r| (r.below(2) as u32, 1 + r.below(2) as usize)),
            specific: small_list(r, 2, |r| (r.below(2) as u32, r.below(2))),
        }
    }

    fn random_desc(r: &mut Rng) -> Desc {
        Desc {
            atexit: small_list(r, 2, |r| [WORD, 1][r.below(2) as usize]),
            output: small_list(r, 16, |_| 1u8),
            objects: small_list(r, 2, |r| small_list(r, 9, |r| r.below(2) as u8)),
            threads: small_list(r, 2, random_thread),
        }
    }

    /// Change exactly one list of `d` (which one is `which`).
    fn mutate(r: &mut Rng, d: &Desc, which: u64) -> Desc {
        let mut m = d.clone();
        let grow = r.below(2) == 0;
        fn edit<T>(v: &mut Vec<T>, grow: bool, item: T) {
            if grow || v.is_empty() {
                v.push(item);
            } else {
                v.pop();
            }
        }
        let t = if m.threads.is_empty() {
            m.threads.push(random_thread(r));
            return m;
        } else {
            r.below(m.threads.len() as u64) as usize
        };
        match which {
            0 => edit(&mut m.atexit, grow, WORD),
            1 => edit(&mut m.output, grow, 1),
            2 => edit(&mut m.objects, grow, vec![1; 8]),
            3 => edit(&mut m.threads, grow, random_thread(r)),
            4 => edit(&mut m.threads[t].frames, grow, (0, vec![WORD], 0)),
            5 => match m.threads[t].frames.first_mut() {
                Some(f) => edit(&mut f.1, grow, 1),
                None => m.threads[t].frames.push((1, vec![], 1)),
            },
            6 => match m.threads[t].frames.first_mut() {
                Some(f) if grow || f.2 == 0 => f.2 += 1,
                Some(f) => f.2 -= 1,
                None => m.threads[t].frames.push((0, vec![], 2)),
            },
            7 => edit(&mut m.threads[t].tls, grow, (1, 1)),
            _ => edit(&mut m.threads[t].specific, grow, (1, 1)),
        }
        m
    }

    #[test]
    fn states_differing_in_one_list_have_different_keys() {
        let mut r = Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..3000 {
            let d = random_desc(&mut r);
            for which in 0..9 {
                let m = mutate(&mut r, &d, which);
                if m != d {
                    assert_ne!(key(&d), key(&m), "list {which} changed:\n{d:?}\n{m:?}");
                }
            }
        }
    }

    #[test]
    fn equal_keys_only_for_equal_random_states() {
        let mut r = Rng(42);
        let mut seen: std::collections::HashMap<Vec<Vec<u8>>, Desc> = Default::default();
        for _ in 0..20_000 {
            let d = random_desc(&mut r);
            if let Some(other) = seen.insert(key(&d), d.clone()) {
                assert_eq!(other, d, "two distinct states share a key");
            }
        }
    }

    /// A frame's register count precedes its values as `write_len` writes it, also at
    /// 128 registers and more, where it takes more than the one byte `write_thread`
    /// reserves before it counts them.
    #[test]
    fn a_frame_of_many_registers_is_written_with_its_count_first() {
        let bytes = |n: usize| {
            let t = Thread::new(pointer_frame(vec![Val::Int(7); n]));
            let mut b = Vec::new();
            write_thread(&mut b, &program(), &t, &[], true);
            b
        };
        let none = bytes(0);
        let at = none
            .iter()
            .zip(&bytes(1))
            .position(|(a, b)| a != b)
            .expect("the count differs");
        for n in [1, 127, 128, 129, 300, 20_000] {
            let mut want = none[..at].to_vec();
            write_len(&mut want, n);
            for _ in 0..n {
                want.push(1);
                want.extend_from_slice(&7u64.to_le_bytes());
            }
            want.extend_from_slice(&none[at + 1..]);
            assert_eq!(bytes(n), want, "{n} registers");
        }
    }

    /// A frame of function 0 at its start with `regs`.
    pub(in crate::store) fn pointer_frame(regs: Vec<Val>) -> Frame {
        Frame {
            func: 0,
            block: 0,
            ip: 0,
            regs: Arc::new(regs),
            undef: Vec::new(),
            allocas: Vec::new(),
            varargs: None,
            ret: ReturnTo::Caller,
        }
    }

    /// Two heap objects X and Y; thread 1 points to X, and X (a pointer-holding object)
    /// to Y. Main points to a third object Z when `main_first`, which is then numbered
    /// before X and Y: everything thread 1 and X name is renumbered, though neither
    /// changed.
    fn shared_parts() -> (Memory, Arc<crate::state::Thread>, ObjId, ObjId) {
        let mut mem = Memory::new();
        let y = mem.allocate(Object::new(8, ObjKind::Heap));
        let mut xo = Object::new(8, ObjKind::Heap);
        xo.data.copy_from_slice(&make_ptr(y, 0).to_le_bytes());
        xo.ptrs.push(0);
        let x = mem.allocate(xo);
        let t1 = Thread::new(pointer_frame(vec![Val::Ptr(make_ptr(x, 0))]));
        (mem, Arc::new(t1), x, y)
    }

    fn with_main(mut mem: Memory, t1: &Arc<crate::state::Thread>, main_first: bool) -> State {
        let regs = if main_first {
            let z = mem.allocate(Object::new(4, ObjKind::Heap));
            vec![Val::Ptr(make_ptr(z, 0))]
        } else {
            vec![Val::Int(0)]
        };
        let mut st = State::new(mem);
        st.threads.push(Arc::new(Thread::new(pointer_frame(regs))));
        st.threads.push(t1.clone());
        st
    }

    /// Chunk ids reused for an unchanged thread and pointer-holding object only while
    /// what they point to keeps its number: a successor that renumbers them gets the
    /// state a fresh canonicaliser (which reuses nothing of them) gives.
    #[test]
    fn reused_chunk_ids_follow_the_renumbering() {
        use crate::store::{Scratch, StateStore};
        let store = StateStore::new();
        let (mem, t1, _, _) = shared_parts();
        let before = with_main(mem.clone(), &t1, false);
        let after = with_main(mem, &t1, true);
        let mut reusing = Canonicalizer::new();
        reusing.all_registers = true;
        let mut scratch = Scratch::default();
        let a = store.insert_state(&mut reusing, &mut scratch, &program(), &before, true);
        let b = store.insert_state(&mut reusing, &mut scratch, &program(), &after, true);
        assert!(a.new && b.new && a.id != b.id);
        // The same states again through the cache: found, with the same ids.
        let again = store.insert_state(&mut reusing, &mut scratch, &program(), &before, true);
        assert_eq!((again.id, again.new), (a.id, false));
        let mut fresh = Canonicalizer::new();
        fresh.all_registers = true;
        let mut scratch = Scratch::default();
        let b2 = store.insert_state(&mut fresh, &mut scratch, &program(), &after, true);
        assert_eq!((b2.id, b2.new), (b.id, false));
        // The same state twice in a row: everything but the process-wide chunk (the two
        // threads, Z, X and Y) comes from the caches.
        for _ in 0..2 {
            let c = store.insert_state(&mut reusing, &mut scratch, &program(), &after, true);
            assert_eq!((c.id, c.new), (b.id, false));
        }
        let known = reusing
            .chunks
            .iter()
            .filter(|ch| matches!(ch, Chunk::Known(_)));
        assert_eq!(known.count(), 5);
    }

    /// A thread's roots are kept once each, without null (`reach_thread`): a thread
    /// that names X twice and null still has its chunk id reused only while X keeps
    /// its number.
    #[test]
    fn repeated_roots_still_follow_the_renumbering() {
        use crate::store::{Scratch, StateStore};
        let store = StateStore::new();
        let (mem, _, x, _) = shared_parts();
        let regs = vec![
            Val::Ptr(make_ptr(x, 0)),
            Val::Ptr(0),
            Val::Ptr(make_ptr(x, 0)),
        ];
        let t1 = Arc::new(Thread::new(pointer_frame(regs)));
        let mut reusing = Canonicalizer::new();
        reusing.all_registers = true;
        let mut scratch = Scratch::default();
        for main_first in [false, true, false, true] {
            let st = with_main(mem.clone(), &t1, main_first);
            let a = store.insert_state(&mut reusing, &mut scratch, &program(), &st, true);
            let mut fresh = Canonicalizer::new();
            fresh.all_registers = true;
            let b = store.insert_state(&mut fresh, &mut Scratch::default(), &program(), &st, true);
            assert_eq!((b.id, b.new), (a.id, false), "{main_first}");
        }
    }

    /// Race data's chunk ids reused only while everything its bytes depend on is
    /// unchanged (`race/reuse.rs`): the same `Arc` with another thread status or
    /// another numbering of the object it names gets the state a fresh canonicaliser
    /// gives.
    #[test]
    fn reused_race_chunk_ids_follow_the_threads_and_the_renumbering() {
        use crate::store::{Scratch, StateStore};
        let store = StateStore::new();
        let (mem, t1, x, _) = shared_parts();
        let mut r = crate::race::RaceState::new();
        r.spawn(0, 1);
        r.access(1, x, 0, 8, true, false, None);
        let races = Arc::new(r);
        let state = |main_first: bool, stuck: bool| {
            let mut st = with_main(mem.clone(), &t1, main_first);
            if stuck {
                Arc::make_mut(&mut st.threads[1]).status = ThreadStatus::Stuck;
            }
            st.races = Some(races.clone());
            st
        };
        let mut reusing = Canonicalizer::new();
        reusing.all_registers = true;
        let mut scratch = Scratch::default();
        let mut ids = Vec::new();
        for (main_first, stuck) in [(false, false), (false, true), (true, false), (false, false)] {
            let st = state(main_first, stuck);
            let a = store.insert_state(&mut reusing, &mut scratch, &program(), &st, true);
            let mut fresh = Canonicalizer::new();
            fresh.all_registers = true;
            let mut fresh_scratch = Scratch::default();
            let b = store.insert_state(&mut fresh, &mut fresh_scratch, &program(), &st, true);
            assert_eq!((b.id, b.new), (a.id, false), "{main_first} {stuck}");
            ids.push(a.id);
        }
        assert!(ids[0] != ids[1] && ids[0] != ids[2] && ids[1] != ids[2]);
        assert_eq!(ids[3], ids[0]);
        // The same state twice in a row: its race data's two chunks (clocks, then the
        // object's histories) come from the cache.
        let st = state(false, false);
        for _ in 0..2 {
            store.insert_state(&mut reusing, &mut scratch, &program(), &st, true);
        }
        let chunks: Vec<Chunk<'_>> = reusing.chunks.iter().collect();
        assert!(chunks[chunks.len() - 2..]
            .iter()
            .all(|c| matches!(c, Chunk::Known(_))));
    }

    /// Three globals, the first two with equal bytes, the third pointing to a heap
    /// object holding `heap`.
    fn globals_state(heap: u8) -> State {
        let mut mem = Memory::new();
        for g in 0..2 {
            mem.allocate(Object::new(8, ObjKind::Global(g)));
        }
        let mut p = Object::new(8, ObjKind::Global(2));
        p.ptrs.push(0);
        let pointer = mem.allocate(p);
        let mut h = Object::new(4, ObjKind::Heap);
        h.data[0] = heap;
        let h = mem.allocate(h);
        mem.globals = 3;
        if let Some(o) = mem.get_mut(pointer) {
            o.data.copy_from_slice(&make_ptr(h, 0).to_le_bytes());
        }
        State::new(mem)
    }

    /// States rebuilt one after the other share the objects of equal chunks, but a
    /// global only with the same global (equal bytes, another index: another object),
    /// and each rebuilt state is the one stored.
    #[test]
    fn rebuilt_states_share_only_equal_parts() {
        use crate::store::{Scratch, StateStore};
        let store = StateStore::new();
        let states = [globals_state(1), globals_state(2)];
        let mut c = Canonicalizer::new();
        let mut scratch = Scratch::default();
        let ids: Vec<u32> = states
            .iter()
            .map(|st| {
                store
                    .insert_state(&mut c, &mut scratch, &program(), st, true)
                    .id
            })
            .collect();
        let back: Vec<State> = ids
            .iter()
            .map(|&id| {
                store
                    .decode(id, &states[0], None, &program(), &c, &mut scratch)
                    .expect("rebuilt")
            })
            .collect();
        for (st, &id) in back.iter().zip(&ids) {
            for g in 0..2 {
                let o = st.memory.get(g + 1).expect("a global");
                assert_eq!(o.kind, ObjKind::Global(g));
            }
            let mut fresh = Canonicalizer::new();
            let mut s2 = Scratch::default();
            let again = store.insert_state(&mut fresh, &mut s2, &program(), st, true);
            assert_eq!((again.id, again.new), (id, false));
        }
        let shared = |o: ObjId| {
            Arc::ptr_eq(
                back[0].memory.get_arc(o).expect("object"),
                back[1].memory.get_arc(o).expect("object"),
            )
        };
        assert!(shared(1) && shared(2) && shared(3) && !shared(4));
    }

    #[test]
    fn atexit_handler_bytes_are_not_output_bytes() {
        // The example from the issue: [f] + "" against [] + the 8 bytes of f.
        let base = Desc {
            atexit: vec![WORD],
            output: vec![],
            objects: vec![],
            threads: vec![],
        };
        let moved = Desc {
            atexit: vec![],
            output: WORD.to_le_bytes().to_vec(),
            ..base.clone()
        };
        assert_ne!(key(&base), key(&moved));
    }
}
