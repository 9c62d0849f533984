//! One thread's delayed-flush buffer as a persistent list: fixed-size chunks shared
//! between the states that hold them, so a store copies at most one chunk (never the
//! whole buffer), and a per-chunk summary of the objects written, so an access scans
//! only the chunks that may hold entries for its object.

use std::hash::{Hash, Hasher};
use std::sync::{Arc, LazyLock};

use super::entry::Entry;

/// Entries per chunk. Every chunk but the last is full, so equal contents have equal
/// layouts and a position finds its chunk by division.
const CHUNK: usize = 32;

#[derive(Clone, Debug)]
struct Chunk {
    entries: Vec<Entry>,
    /// Bit `object % 64` is set for every object an entry of the chunk writes.
    objects: u64,
}

fn object_bit(object: u32) -> u64 {
    1 << (object % 64)
}

/// A thread's buffered entries, oldest first. Cloning shares the list of chunks (one
/// reference count, no allocation: states are cloned for every transition).
#[derive(Clone, Debug, Default)]
pub struct EntryList {
    chunks: Arc<Vec<Arc<Chunk>>>,
    len: usize,
}

/// The list of a thread that has no entry.
pub(crate) static EMPTY: LazyLock<EntryList> = LazyLock::new(EntryList::default);

impl EntryList {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The same list, shared (not merely equal contents).
    pub(crate) fn same_as(&self, other: &EntryList) -> bool {
        Arc::ptr_eq(&self.chunks, &other.chunks) && self.len == other.len
    }

    pub fn get(&self, position: usize) -> Option<&Entry> {
        self.chunks
            .get(position / CHUNK)
            .and_then(|c| c.entries.get(position % CHUNK))
    }

    /// Oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Entry> + '_ {
        self.chunks.iter().flat_map(|c| c.entries.iter())
    }

    /// Appends an entry. When other states share the list, copies the chunk pointers
    /// (one per 32 entries) and at most the last chunk, never the entries of the others.
    pub(crate) fn push(&mut self, entry: Entry) {
        let bit = object_bit(entry.range.addr.object);
        let chunks = Arc::make_mut(&mut self.chunks);
        match chunks.last_mut() {
            Some(last) if last.entries.len() < CHUNK => match Arc::get_mut(last) {
                Some(last) => {
                    last.objects |= bit;
                    last.entries.push(entry);
                }
                None => {
                    let mut entries = Vec::with_capacity(last.entries.len() + 1);
                    entries.extend(last.entries.iter().cloned());
                    entries.push(entry);
                    *last = Arc::new(Chunk {
                        entries,
                        objects: last.objects | bit,
                    });
                }
            },
            _ => chunks.push(Arc::new(Chunk {
                entries: vec![entry],
                objects: bit,
            })),
        }
        self.len += 1;
    }

    /// The entries that write `object`, with their positions, oldest first: only the
    /// chunks whose summary names the object are scanned.
    pub(crate) fn of_object(
        &self,
        object: u32,
    ) -> impl DoubleEndedIterator<Item = (usize, &Entry)> + '_ {
        let bit = object_bit(object);
        self.chunks
            .iter()
            .enumerate()
            .filter(move |(_, c)| c.objects & bit != 0)
            .flat_map(move |(k, c)| {
                c.entries
                    .iter()
                    .enumerate()
                    .map(move |(i, e)| (k * CHUNK + i, e))
                    .filter(move |(_, e)| e.range.addr.object == object)
            })
    }

    /// True if some entry writes `object`.
    pub(crate) fn writes_object(&self, object: u32) -> bool {
        self.of_object(object).next().is_some()
    }

    /// Calls `f` on every entry; a chunk shared with other states is copied only when
    /// `f` changes one of its entries (it returns the changed entry).
    pub(crate) fn update(&mut self, mut f: impl FnMut(&Entry) -> Option<Entry>) {
        for k in 0..self.chunks.len() {
            for i in 0..self.chunks[k].entries.len() {
                if let Some(changed) = f(&self.chunks[k].entries[i]) {
                    let chunk = Arc::make_mut(&mut Arc::make_mut(&mut self.chunks)[k]);
                    chunk.entries[i] = changed;
                    chunk.objects = chunk
                        .entries
                        .iter()
                        .fold(0, |m, e| m | object_bit(e.range.addr.object));
                }
            }
        }
    }
}

impl FromIterator<Entry> for EntryList {
    fn from_iter<I: IntoIterator<Item = Entry>>(entries: I) -> Self {
        let mut list = EntryList::default();
        for e in entries {
            list.push(e);
        }
        list
    }
}

impl<'a> IntoIterator for &'a EntryList {
    type Item = &'a Entry;
    type IntoIter = Box<dyn DoubleEndedIterator<Item = &'a Entry> + 'a>;
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl std::ops::Index<usize> for EntryList {
    type Output = Entry;
    fn index(&self, position: usize) -> &Entry {
        &self.chunks[position / CHUNK].entries[position % CHUNK]
    }
}

impl PartialEq for EntryList {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len
            && (Arc::ptr_eq(&self.chunks, &other.chunks)
                || self
                    .chunks
                    .iter()
                    .zip(other.chunks.iter())
                    .all(|(a, b)| Arc::ptr_eq(a, b) || a.entries == b.entries))
    }
}

impl Eq for EntryList {}

impl Hash for EntryList {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.len.hash(state);
        for e in self.iter() {
            e.hash(state);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::types::{Payload, Range};

    fn entry(object: u32, value: u64) -> Entry {
        Entry::new(Range::new(object, 0, 4), Payload::from_int(value, 4), 0)
    }

    #[test]
    fn pushes_share_full_chunks_and_keep_positions() {
        let mut a: EntryList = (0..CHUNK as u64 * 2 + 3).map(|v| entry(1, v)).collect();
        let b = a.clone();
        a.push(entry(2, 99));
        // The full chunks are still the ones `b` holds; only the last one was copied.
        assert!(Arc::ptr_eq(&a.chunks[0], &b.chunks[0]));
        assert!(Arc::ptr_eq(&a.chunks[1], &b.chunks[1]));
        assert!(!Arc::ptr_eq(&a.chunks[2], &b.chunks[2]));
        assert_eq!(a.len(), 2 * CHUNK + 4);
        assert_eq!(b.len(), 2 * CHUNK + 3);
        assert_eq!(a[2 * CHUNK + 3].payload.to_int(), 99);
        assert_eq!(a.get(CHUNK + 1).map(|e| e.payload.to_int()), Some(33));
        assert!(a.get(2 * CHUNK + 4).is_none());
        let same: EntryList = a.iter().cloned().collect();
        assert_eq!(same, a);
        assert_ne!(a, b);
    }

    #[test]
    fn of_object_lists_exactly_the_entries_of_the_object() {
        // Objects 3 and 67 share a summary bit; 5 appears only in the second chunk.
        let list: EntryList = (0..CHUNK as u32 + 4)
            .map(|i| match i % 3 {
                0 => entry(3, i.into()),
                1 => entry(67, i.into()),
                _ if i as usize >= CHUNK => entry(5, i.into()),
                _ => entry(3, i.into()),
            })
            .collect();
        for object in [3, 67, 5, 4] {
            let expected: Vec<usize> = list
                .iter()
                .enumerate()
                .filter(|(_, e)| e.range.addr.object == object)
                .map(|(p, _)| p)
                .collect();
            let found: Vec<usize> = list.of_object(object).map(|(p, _)| p).collect();
            assert_eq!(found, expected, "object {object}");
            let newest_first: Vec<usize> = list.of_object(object).rev().map(|(p, _)| p).collect();
            assert_eq!(
                newest_first,
                expected.iter().rev().copied().collect::<Vec<_>>()
            );
            assert_eq!(list.writes_object(object), !expected.is_empty());
        }
    }
}
