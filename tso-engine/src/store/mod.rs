//! State storage: the visited set. States are split into chunks (one per thread, one
//! per object, ...) and each distinct chunk is stored once (hash-consing), so a new
//! state costs little more than a vector of chunk ids. Both tables are exact: equal
//! hashes are confirmed by comparing bytes.

mod canon;
mod hash;
mod interner;

pub use canon::{Canonicalizer, Chunk, Chunks};
pub use hash::hash_bytes;
pub use interner::Interner;

/// The set of visited states.
pub struct StateStore {
    chunks: Interner,
    states: Interner,
    ids: Vec<u8>,
    /// Distinguishes this store's chunk ids from another store's in object caches.
    generation: u32,
}

static GENERATION: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);

impl Default for StateStore {
    fn default() -> Self {
        StateStore::new()
    }
}

impl StateStore {
    pub fn new() -> StateStore {
        let generation = GENERATION
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            .max(1);
        StateStore {
            chunks: Interner::default(),
            states: Interner::default(),
            ids: Vec::new(),
            generation,
        }
    }

    /// Serialise `st` canonically and insert it: its id, and true if it was not seen
    /// before.
    pub fn insert_state(
        &mut self,
        canon: &mut Canonicalizer,
        program: &crate::ir::Program,
        st: &crate::state::State,
        include_output: bool,
    ) -> (u32, bool) {
        canon.cache_generation = self.generation;
        canon.run(program, st, include_output);
        let r = self.insert(&canon.chunks);
        // Remember the ids of unchanged pointer-free objects for the next state.
        for (i, obj) in canon.chunks.cacheable() {
            if let Some(o) = st.memory.get(obj) {
                let id =
                    u32::from_le_bytes(self.ids[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
                o.chunk_cache
                    .set((self.generation as u64) << 32 | id as u64);
            }
        }
        r
    }

    /// Insert a canonical state given as chunks: its id, and true if it was new.
    pub fn insert(&mut self, chunks: &canon::Chunks) -> (u32, bool) {
        self.ids.clear();
        for c in chunks.iter() {
            let id = match c {
                Chunk::Bytes(b) => self.chunks.intern(b).0,
                Chunk::Known(id) => id,
            };
            self.ids.extend_from_slice(&id.to_le_bytes());
        }
        let ids = std::mem::take(&mut self.ids);
        let r = self.states.intern(&ids);
        self.ids = ids;
        r
    }

    pub fn states(&self) -> usize {
        self.states.len()
    }

    /// Bytes held by the store (arenas and hash tables).
    pub fn bytes(&self) -> usize {
        self.chunks.bytes() + self.states.bytes()
    }
}
