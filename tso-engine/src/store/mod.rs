//! State storage: the visited set, shared by all workers. States are split into chunks
//! (one per thread, one per object, ...); each distinct chunk is stored once
//! (hash-consing), and the list of chunk ids is stored as a tree of hash-consed pairs
//! (`tree`), so a new state costs the nodes on its changed paths plus its root. Every
//! table is exact: equal hashes are confirmed by comparing contents. Each table is split
//! into shards by hash, each behind its own lock, so workers rarely wait for each other.

mod canon;
pub(crate) mod decode;
mod fingerprint;
mod hash;
mod interner;
mod paged;
mod reuse;
pub(crate) mod symmetry;
mod tree;

pub use canon::{incremental_counts, Base, Canonicalizer, Chunk};
pub use fingerprint::{Fingerprint, Fingerprinter};
pub use hash::hash_bytes;
pub use interner::Interner;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// log2 of the number of shards of each table.
const SHARD_BITS: u32 = 6;
const SHARDS: usize = 1 << SHARD_BITS;

/// A table split into shards; an id is `(index in its shard << SHARD_BITS) | shard`.
struct Sharded<T> {
    shards: Vec<Mutex<Shard<T>>>,
    /// Times a lock was found taken (contention, for the benchmark).
    waits: AtomicU64,
}

/// One shard's table, and how many times its lock was taken: counted under the lock,
/// so the count costs no shared write of its own.
#[derive(Default)]
struct Shard<T> {
    table: T,
    locks: u64,
}

/// A locked shard's table.
struct Locked<'a, T>(std::sync::MutexGuard<'a, Shard<T>>);

impl<T> std::ops::Deref for Locked<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0.table
    }
}

impl<T> std::ops::DerefMut for Locked<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0.table
    }
}

impl<T: Default> Sharded<T> {
    fn new() -> Self {
        Sharded {
            shards: (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect(),
            waits: AtomicU64::new(0),
        }
    }

    fn lock(&self, shard: usize) -> Locked<'_, T> {
        let m = &self.shards[shard];
        let mut g = match m.try_lock() {
            Ok(g) => g,
            Err(std::sync::TryLockError::WouldBlock) => {
                self.waits.fetch_add(1, Ordering::Relaxed);
                m.lock().unwrap_or_else(|e| e.into_inner())
            }
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
        };
        g.locks += 1;
        Locked(g)
    }

    fn for_each(&self, mut f: impl FnMut(&mut T)) {
        for s in 0..SHARDS {
            f(&mut self.lock(s));
        }
    }

    /// (times a lock was taken, times it was found taken).
    fn contention(&self) -> (u64, u64) {
        let locks = self
            .shards
            .iter()
            .map(|m| m.lock().map_or(0, |g| g.locks))
            .sum();
        (locks, self.waits.load(Ordering::Relaxed))
    }
}

#[inline]
fn shard_of(h: u64) -> usize {
    (h >> (64 - SHARD_BITS)) as usize
}

#[inline]
fn global_id(shard: usize, local: u32) -> u32 {
    // Past 2^(32 - SHARD_BITS) entries in one shard the shift would wrap and name an
    // older entry: two different states could share an id. An internal error instead
    // (a table that large holds tens of GiB).
    assert!(
        local < 1 << (32 - SHARD_BITS),
        "a shard of the state store is full"
    );
    (local << SHARD_BITS) | shard as u32
}

/// The states of one shard, and where the current search level began in it.
#[derive(Default)]
struct StateShard {
    table: tree::RootTable,
    level_start: u32,
}

/// Space a worker reuses from one insertion to the next.
#[derive(Default)]
pub struct Scratch {
    /// The chunk ids of the state inserted last.
    pub ids: Vec<u32>,
    /// The chunk ids of the state rebuilt last, and the chunk read last.
    decoded_ids: Vec<u32>,
    decoded_bytes: Vec<u8>,
    /// Threads and objects rebuilt lately, shared by the next states rebuilt.
    rebuilt: decode::Rebuilt,
    levels: tree::Levels,
    /// Recently seen tree nodes, ((left << 32) | right, id), direct-mapped by hash:
    /// successors share most nodes with their parent and siblings, and a node's id never
    /// changes, so most lookups end here without a lock or a miss in the big table.
    nodes: Vec<(u64, u32)>,
    /// The other way round: (id, its children), direct-mapped by id, for rebuilding a
    /// state (`decode`) without taking a lock per node it shares with recent states.
    pairs: Vec<(u64, [u32; 2])>,
    /// Misses in `nodes` and `pairs` since they last grew (see `NODE_CACHE_MIN`).
    node_misses: usize,
    /// The largest group of interchangeable threads seen per start routine by this
    /// worker (see `StateStore::symmetry_groups`).
    groups_seen: std::collections::BTreeMap<u32, u32>,
}

impl Scratch {
    /// The chunk ids of the state rebuilt last (`StateStore::decode`).
    pub fn decoded_ids(&self) -> &[u32] {
        &self.decoded_ids
    }

    /// Make the node caches ready: allocated at their first size, or doubled once their
    /// misses since they last grew reach their size (up to `NODE_CACHE_MAX`).
    #[inline]
    fn ready_node_caches(&mut self) {
        let len = self.nodes.len();
        if len == 0 || (len < NODE_CACHE_MAX && self.node_misses >= len) {
            self.grow_node_caches();
        }
    }

    #[cold]
    fn grow_node_caches(&mut self) {
        let len = match self.nodes.len() {
            0 => NODE_CACHE_MIN,
            len => 2 * len,
        };
        // Emptied, not copied: a slot's place depends on the size.
        self.nodes = vec![(u64::MAX, 0); len];
        self.pairs = vec![(u64::MAX, [0, 0]); len];
        self.node_misses = 0;
    }

    /// Slots of the node caches (a power of two).
    #[cfg(test)]
    fn node_cache_len(&self) -> usize {
        self.nodes.len()
    }
}

/// Slots of a worker's node caches at first: a short check fills and probes only a few
/// pages of them (two caches of 2^14 slots are 512 KiB, most of it written before the
/// first state and read cold). They double while they keep missing: a large search
/// reaches the largest size within its first few thousand states. The price is the
/// misses of the smaller caches meanwhile: +0.1% to +0.9% instructions on the guard's
/// runs of 2,000 states (`bench/PERFORMANCE.md`).
const NODE_CACHE_MIN: usize = 1 << 10;
const NODE_CACHE_MAX: usize = 1 << 14;
const _: () = assert!(NODE_CACHE_MAX <= 1 << 14, "node_slot takes 14 bits");

/// What inserting a state found.
#[derive(Clone, Copy, Debug)]
pub struct Inserted {
    pub id: u32,
    /// Not seen before.
    pub new: bool,
    /// First seen in the current level (see [`StateStore::begin_level`]).
    pub this_level: bool,
}

/// The set of visited states.
pub struct StateStore {
    chunks: Sharded<Interner>,
    nodes: Sharded<tree::NodeTable>,
    states: Sharded<StateShard>,
    count: AtomicU64,
    /// Distinguishes this store's chunk ids from another store's in object caches.
    generation: u32,
    /// States are stored up to a permutation of threads (`symmetry.rs`).
    symmetry: bool,
    /// Per start routine, the most running threads of it whose order symmetry decided
    /// in one state.
    groups: Mutex<std::collections::BTreeMap<u32, u32>>,
}

static GENERATION: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);

impl Default for StateStore {
    fn default() -> Self {
        StateStore::new()
    }
}

impl StateStore {
    pub fn new() -> StateStore {
        let generation = GENERATION.fetch_add(1, Ordering::Relaxed).max(1);
        StateStore {
            chunks: Sharded::new(),
            nodes: Sharded::new(),
            states: Sharded::new(),
            count: AtomicU64::new(0),
            generation,
            symmetry: false,
            groups: Mutex::new(Default::default()),
        }
    }

    /// This store, storing states up to a permutation of threads when `on`.
    pub fn with_symmetry(mut self, on: bool) -> StateStore {
        self.symmetry = on;
        self
    }

    /// Serialise `st` canonically and insert it.
    pub fn insert_state(
        &self,
        canon: &mut Canonicalizer,
        scratch: &mut Scratch,
        program: &crate::ir::Program,
        st: &crate::state::State,
        include_output: bool,
    ) -> Inserted {
        canon.cache_generation = self.generation;
        canon.symmetry = self.symmetry;
        canon.run(program, st, include_output);
        self.note_groups(&canon.free_starts, scratch);
        let r = self.insert(&canon.chunks, scratch);
        // Remember the chunk ids for the next states that share objects and threads.
        canon.remember_ids(st, &scratch.ids);
        if canon.check && canon.was_incremental() {
            self.check_incremental(canon, scratch, program, st, include_output, r);
        }
        r
    }

    /// Test mode (`Canonicalizer::check`): the state just inserted incrementally as
    /// `r`, canonicalised afresh by another canonicaliser, is the same state with the
    /// same chunk ids, object numbering and thread order.
    fn check_incremental(
        &self,
        canon: &mut Canonicalizer,
        scratch: &Scratch,
        program: &crate::ir::Program,
        st: &crate::state::State,
        include_output: bool,
        r: Inserted,
    ) {
        let mut shadow = canon.shadow.take().unwrap_or_default();
        let (full, full_scratch) = &mut *shadow;
        full.all_registers = canon.all_registers;
        let again = self.insert_state(full, full_scratch, program, st, include_output);
        assert!(
            !again.new && again.id == r.id && full_scratch.ids == scratch.ids,
            "incremental canonicalisation gave other chunks than the full one"
        );
        assert!(
            full.numbering() == canon.numbering(),
            "incremental canonicalisation numbered otherwise than the full one"
        );
        canon.shadow = Some(shadow);
    }

    /// Insert a canonical state given as chunks; `scratch.ids` is left holding the
    /// chunk ids.
    pub fn insert(&self, chunks: &canon::Chunks, scratch: &mut Scratch) -> Inserted {
        scratch.ready_node_caches();
        let ids = &mut scratch.ids;
        ids.clear();
        for c in chunks.iter() {
            let id = match c {
                Chunk::Bytes(b) => {
                    let h = hash_bytes(b);
                    let shard = shard_of(h);
                    let (local, _) = self.chunks.lock(shard).intern_hashed(h, b);
                    global_id(shard, local)
                }
                Chunk::Known(id) => id,
            };
            ids.push(id);
        }
        let (cache, pairs, misses) = (
            &mut scratch.nodes,
            &mut scratch.pairs,
            &mut scratch.node_misses,
        );
        let mask = cache.len() - 1;
        let root = scratch.levels.fold(ids, |a, b| {
            let h = tree::hash_pair(a, b);
            let pair = (a as u64) << 32 | b as u64;
            let slot = &mut cache[(h as usize) & mask];
            if slot.0 == pair && pair != u64::MAX {
                return slot.1;
            }
            *misses += 1;
            let shard = shard_of(h);
            let id = global_id(shard, self.nodes.lock(shard).intern(h, a, b));
            *slot = (pair, id);
            pairs[node_slot(id, mask)] = (id as u64, [a, b]);
            id
        });
        // The root and the number of chunks (which fixes the tree's shape).
        let chunks = u32::try_from(ids.len()).expect("fewer than 2^32 chunks in a state");
        let shard = shard_of(tree::RootTable::hash(root, chunks));
        let (local, new, this_level) = {
            let mut s = self.states.lock(shard);
            let (local, new) = s.table.intern(root, chunks);
            (local, new, local >= s.level_start)
        };
        if new {
            self.count.fetch_add(1, Ordering::Relaxed);
        }
        Inserted {
            id: global_id(shard, local),
            new,
            this_level,
        }
    }

    /// Rebuild the state stored as `id` (see `decode`): `base` is the initial state,
    /// `ext` a value of the kind of extension data the state holds, `canon` the
    /// canonicalizer it was serialised with. None when it cannot be rebuilt (race data,
    /// or extension data that cannot decode itself).
    pub fn decode(
        &self,
        id: u32,
        base: &crate::state::State,
        ext: Option<&dyn crate::state::ExtState>,
        program: &crate::ir::Program,
        canon: &Canonicalizer,
        scratch: &mut Scratch,
    ) -> Option<crate::state::State> {
        let (shard, local) = split_id(id);
        let (root, n) = self.states.lock(shard).table.get(local as u32);
        scratch.ready_node_caches();
        let ids = &mut scratch.decoded_ids;
        let (pairs, misses) = (&mut scratch.pairs, &mut scratch.node_misses);
        let mask = pairs.len() - 1;
        tree::unfold(root, n as usize, ids, |node| {
            let slot = &mut pairs[node_slot(node, mask)];
            if slot.0 == node as u64 {
                return slot.1;
            }
            *misses += 1;
            let (shard, local) = split_id(node);
            let pair = self.nodes.lock(shard).get(local as u32);
            *slot = (node as u64, pair);
            pair
        });
        let chunks = decode::StoredChunks {
            ids,
            generation: (self.generation as u64) << 32,
        };
        // Copied out one lock at a time: holding two shard locks could deadlock.
        let mut source = FromStore {
            store: self,
            ids,
            bytes: &mut scratch.decoded_bytes,
        };
        decode::decode(
            program,
            base,
            ext,
            &chunks,
            &mut source,
            canon.all_registers,
            &mut scratch.rebuilt,
        )
    }

    /// Remember the groups of interchangeable threads of a state (start routines,
    /// sorted); the worker's own record spares the lock when nothing grew.
    fn note_groups(&self, starts: &[u32], scratch: &mut Scratch) {
        for run in starts.chunk_by(|a, b| a == b) {
            let n = run.len() as u32;
            let seen = scratch.groups_seen.entry(run[0]).or_insert(0);
            if n > *seen {
                *seen = n;
                let mut all = self.groups.lock().unwrap_or_else(|e| e.into_inner());
                let g = all.entry(run[0]).or_insert(0);
                *g = (*g).max(n);
            }
        }
    }

    /// The sizes of the groups of interchangeable threads (threads of one start
    /// routine whose order symmetry decided in some state), largest first.
    pub fn symmetry_groups(&self) -> Vec<u32> {
        let all = self.groups.lock().unwrap_or_else(|e| e.into_inner());
        let mut sizes: Vec<u32> = all.values().copied().filter(|&n| n > 1).collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        sizes
    }

    /// States inserted from now on are "this level" (see [`Inserted::this_level`]).
    pub fn begin_level(&self) {
        self.states
            .for_each(|s| s.level_start = s.table.len() as u32);
    }

    pub fn states(&self) -> usize {
        self.count.load(Ordering::Relaxed) as usize
    }

    /// Bytes held by the store (arenas and hash tables).
    pub fn bytes(&self) -> usize {
        let mut n = 0;
        self.chunks.for_each(|c| n += c.bytes());
        self.nodes.for_each(|t| n += t.bytes());
        self.states.for_each(|s| n += s.table.bytes());
        n
    }

    /// How often workers took the store's shard locks, per table, and found them
    /// taken by another worker (for the benchmark's contention figures).
    pub fn contention(&self) -> Contention {
        Contention {
            chunks: self.chunks.contention(),
            nodes: self.nodes.contention(),
            states: self.states.contention(),
        }
    }
}

/// Lock acquisitions and waits (a lock found taken) of each table of the store:
/// `(acquisitions, waits)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Contention {
    pub chunks: (u64, u64),
    pub nodes: (u64, u64),
    pub states: (u64, u64),
}

impl Contention {
    pub fn acquisitions(&self) -> u64 {
        self.chunks.0 + self.nodes.0 + self.states.0
    }
    pub fn waits(&self) -> u64 {
        self.chunks.1 + self.nodes.1 + self.states.1
    }
}

/// A stored state's chunk bytes, each copied out of its shard when asked for.
struct FromStore<'a> {
    store: &'a StateStore,
    ids: &'a [u32],
    bytes: &'a mut Vec<u8>,
}

impl decode::ChunkBytes for FromStore<'_> {
    fn get(&mut self, i: usize) -> Option<&[u8]> {
        let (shard, local) = split_id(*self.ids.get(i)?);
        self.bytes.clear();
        self.bytes
            .extend_from_slice(self.store.chunks.lock(shard).get(local as u32)?);
        Some(self.bytes)
    }
}

/// The slot of tree node `id` in a worker's cache of node children, whose slots are
/// `mask + 1` (at most 2^14: the product's top 14 bits).
#[inline]
fn node_slot(id: u32, mask: usize) -> usize {
    (id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) as usize >> 50 & mask
}

/// Split a state id into (shard, index in the shard).
pub fn split_id(id: u32) -> (usize, usize) {
    ((id as usize) & (SHARDS - 1), (id >> SHARD_BITS) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_a_full_shard_is_an_error_not_a_wrapped_id() {
        let last = (1u32 << (32 - SHARD_BITS)) - 1;
        assert_eq!(split_id(global_id(5, 7)), (5, 7));
        assert_eq!(
            split_id(global_id(SHARDS - 1, last)),
            (SHARDS - 1, last as usize)
        );
        let wrapped = std::panic::catch_unwind(|| global_id(3, last + 1));
        assert!(wrapped.is_err(), "an index past the id space must not wrap");
    }

    /// States of 64 chunks, each differing from the one before in its last chunk.
    fn chain(n: u32) -> impl Iterator<Item = canon::Chunks> {
        (0..n).map(|i| {
            let ids: Vec<u32> = (0..64).map(|k| if k == 63 { i } else { k }).collect();
            canon::Chunks::known(&ids)
        })
    }

    #[test]
    fn node_caches_start_small_and_grow_while_they_miss() {
        let store = StateStore::new();
        let mut scratch = Scratch::default();
        let first = store.insert(&canon::Chunks::known(&[1, 2, 3]), &mut scratch);
        assert!(first.new);
        assert_eq!(scratch.node_cache_len(), NODE_CACHE_MIN);
        // A few states that share most nodes: they hit, and the caches stay small.
        for c in chain(8) {
            store.insert(&c, &mut scratch);
        }
        assert_eq!(scratch.node_cache_len(), NODE_CACHE_MIN);
        // Many new nodes: the caches double up to their largest size, never past it.
        let ids: Vec<u32> = chain(40_000)
            .map(|c| store.insert(&c, &mut scratch).id)
            .collect();
        assert_eq!(scratch.node_cache_len(), NODE_CACHE_MAX);
        // Growing lost nothing: every state is found again as itself, with fresh caches
        // and with the grown ones, and rebuilds to its chunks.
        for (scratch, rebuild) in [(&mut Scratch::default(), true), (&mut scratch, false)] {
            for (c, &id) in chain(40_000).zip(&ids) {
                let r = store.insert(&c, scratch);
                assert!(
                    !r.new && r.id == id,
                    "a state stored again must keep its id"
                );
                if rebuild && id % 997 == 0 {
                    let expected: Vec<u32> = c
                        .iter()
                        .map(|ch| match ch {
                            Chunk::Known(id) => id,
                            Chunk::Bytes(_) => unreachable!(),
                        })
                        .collect();
                    let (shard, local) = split_id(id);
                    let (root, n) = store.states.lock(shard).table.get(local as u32);
                    let mut leaves = Vec::new();
                    tree::unfold(root, n as usize, &mut leaves, |node| {
                        let (s, l) = split_id(node);
                        store.nodes.lock(s).get(l as u32)
                    });
                    assert_eq!(leaves, expected);
                }
            }
        }
        assert_eq!(store.states(), 1 + 40_000);
    }
}
