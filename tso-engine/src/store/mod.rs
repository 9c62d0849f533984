//! State storage: the visited set. States are split into chunks (one per thread, one
//! per object, ...) and each distinct chunk is stored once (hash-consing), so a new
//! state costs little more than a vector of chunk ids. Both tables are exact: equal
//! hashes are confirmed by comparing bytes.

mod canon;
mod hash;
mod interner;

pub use canon::Canonicalizer;
pub use hash::hash_bytes;
pub use interner::Interner;

/// The set of visited states.
#[derive(Default)]
pub struct StateStore {
    chunks: Interner,
    states: Interner,
    ids: Vec<u8>,
}

impl StateStore {
    pub fn new() -> StateStore {
        StateStore::default()
    }

    /// Insert a canonical state given as chunks; true if it was not seen before.
    pub fn insert(&mut self, chunks: &canon::Chunks) -> bool {
        self.ids.clear();
        for c in chunks.iter() {
            let (id, _) = self.chunks.intern(c);
            self.ids.extend_from_slice(&id.to_le_bytes());
        }
        let ids = std::mem::take(&mut self.ids);
        let (_, new) = self.states.intern(&ids);
        self.ids = ids;
        new
    }

    pub fn states(&self) -> usize {
        self.states.len()
    }

    /// Bytes held by the store (arenas and hash tables).
    pub fn bytes(&self) -> usize {
        self.chunks.bytes() + self.states.bytes()
    }
}
