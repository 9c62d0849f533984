//! A hash-consing table of byte strings stored back to back in one arena.

use super::hash_bytes;
use hashbrown::HashTable;

#[derive(Default)]
pub struct Interner {
    arena: Vec<u8>,
    /// (offset, length) of each distinct string, by id.
    spans: Vec<(u32, u32)>,
    /// Ids, keyed by the hash of their bytes (the hash is not stored: recomputed on growth).
    table: HashTable<u32>,
}

impl Interner {
    /// The id of `bytes`, and whether it was new.
    pub fn intern(&mut self, bytes: &[u8]) -> (u32, bool) {
        self.intern_hashed(hash_bytes(bytes), bytes)
    }

    /// [`Interner::intern`] with the hash of `bytes` already computed.
    pub fn intern_hashed(&mut self, h: u64, bytes: &[u8]) -> (u32, bool) {
        let arena = &self.arena;
        let spans = &self.spans;
        let eq = |&id: &u32| {
            let (o, l) = spans[id as usize];
            &arena[o as usize..(o + l) as usize] == bytes
        };
        if let Some(&id) = self.table.find(h, eq) {
            return (id, false);
        }
        let id = self.spans.len() as u32;
        let off = self.arena.len() as u32;
        self.arena.extend_from_slice(bytes);
        self.spans.push((off, bytes.len() as u32));
        let arena = &self.arena;
        let spans = &self.spans;
        self.table.insert_unique(h, id, |&i| {
            let (o, l) = spans[i as usize];
            hash_bytes(&arena[o as usize..(o + l) as usize])
        });
        (id, true)
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn bytes(&self) -> usize {
        self.arena.capacity() + self.spans.capacity() * 8 + self.table.capacity() * 5
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_bytes_get_one_id_and_ids_are_dense() {
        let mut t = Interner::default();
        assert!(t.is_empty());
        assert_eq!(t.intern(b"alpha"), (0, true));
        assert_eq!(t.intern(b"beta"), (1, true));
        assert_eq!(t.intern(b""), (2, true));
        assert_eq!(t.intern(b"alpha"), (0, false));
        assert_eq!(t.intern(b""), (2, false));
        // A prefix or extension is a different string.
        assert_eq!(t.intern(b"alph"), (3, true));
        assert_eq!(t.intern(b"alphaa"), (4, true));
        assert_eq!(t.len(), 5);
        assert!(t.bytes() > 0);
    }

    #[test]
    fn many_strings_survive_table_growth() {
        let mut t = Interner::default();
        let key = |i: u32| -> Vec<u8> {
            (0..(i % 37))
                .map(|k| (i.wrapping_mul(31) ^ k) as u8)
                .chain(i.to_le_bytes())
                .collect()
        };
        for i in 0..20_000u32 {
            assert_eq!(t.intern(&key(i)), (i, true), "first insert of {i}");
        }
        for i in (0..20_000u32).rev() {
            assert_eq!(t.intern(&key(i)), (i, false), "second insert of {i}");
        }
        assert_eq!(t.len(), 20_000);
    }
}
