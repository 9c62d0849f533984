//! Chunk ids reused for threads and pointer-holding objects that a transition did not
//! touch (issue 9: canonicalisation touches only what changed since the parent).
//!
//! A successor shares every thread and object it did not change with its parent, as the
//! same `Arc`. This per-worker cache keeps, per `Arc` it saw serialised, a clone of that
//! `Arc`, the object ids its serialisation looked up in the renumbering, the new numbers
//! they got, and the chunk id the store gave the bytes. Exact because:
//! - holding a clone keeps the count above one, so `Arc::make_mut` copies before any
//!   change: the same pointer always means the same contents;
//! - a chunk's bytes are a function of the contents (and of `all_registers` and race
//!   tracking, kept in `flags`) and of the new numbers of the ids it looks up, which are
//!   compared one by one before the id is reused.
//!
//! Pointer-free objects need none of this: their bytes do not depend on the numbering,
//! and `Object::chunk_cache` keeps their id in the object itself, for every worker.

use crate::memory::ObjId;
use std::sync::Arc;

/// log2 of the number of slots of a cache (direct-mapped by address).
const SLOT_BITS: u32 = 9;

/// What one cached `Arc` serialised to.
pub(super) struct Entry<T> {
    pub item: Arc<T>,
    /// What else the bytes depend on (`all_registers`, race tracking).
    pub flags: u8,
    /// Threads only: the ids the traversal reached from it, in order (the same for the
    /// same contents).
    pub roots: Vec<ObjId>,
    /// The new numbers of the ids the serialisation looked up, when it was serialised.
    pub names: Vec<u32>,
    /// `(store generation << 32) | chunk id` of the bytes, 0 while unknown.
    pub chunk: u64,
}

/// A direct-mapped cache of entries by `Arc` address.
pub(super) struct ArcCache<T> {
    slots: Vec<Option<Entry<T>>>,
}

impl<T> Default for ArcCache<T> {
    fn default() -> Self {
        ArcCache { slots: Vec::new() }
    }
}

/// The slot of `item` in a direct-mapped cache of `2^bits` slots by `Arc` address.
#[inline]
pub(super) fn arc_slot<T>(item: &Arc<T>, bits: u32) -> usize {
    let a = Arc::as_ptr(item) as usize as u64;
    (a.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize
}

impl<T> ArcCache<T> {
    #[inline]
    pub fn slot_of(item: &Arc<T>) -> usize {
        arc_slot(item, SLOT_BITS)
    }

    /// The entry of `item` with these `flags`, if cached.
    #[inline]
    pub fn get(&mut self, item: &Arc<T>, flags: u8) -> Option<&mut Entry<T>> {
        let slot = Self::slot_of(item);
        self.slots
            .get_mut(slot)?
            .as_mut()
            .filter(|e| e.flags == flags && Arc::ptr_eq(&e.item, item))
    }

    /// The entry at `slot` if it still holds `item`.
    #[inline]
    pub fn at(&mut self, slot: usize, item: *const T) -> Option<&mut Entry<T>> {
        self.slots
            .get_mut(slot)?
            .as_mut()
            .filter(|e| std::ptr::eq(Arc::as_ptr(&e.item), item))
    }

    /// Make `item` the entry of its slot (replacing what was there), empty but for
    /// `roots`; returns the slot. The entry replaced lends its buffers.
    pub fn insert(&mut self, item: &Arc<T>, flags: u8, roots: &[ObjId]) -> usize {
        if self.slots.is_empty() {
            self.slots.resize_with(1 << SLOT_BITS, || None);
        }
        let slot = Self::slot_of(item);
        match &mut self.slots[slot] {
            Some(old) => {
                old.item = item.clone();
                old.flags = flags;
                old.roots.clear();
                old.roots.extend_from_slice(roots);
                old.names.clear();
                old.chunk = 0;
            }
            empty => {
                *empty = Some(Entry {
                    item: item.clone(),
                    flags,
                    roots: roots.to_vec(),
                    names: Vec::new(),
                    chunk: 0,
                })
            }
        }
        slot
    }
}

/// The new number of `id` under `map`, as both renaming functions of `canon.rs` read
/// it (an id outside the map is `u32::MAX`, like an unreachable one).
#[inline]
pub(super) fn name_of(map: &[u32], id: ObjId) -> u32 {
    map.get(id as usize).copied().unwrap_or(u32::MAX)
}

/// Whether `names` are still the new numbers of `ids` under `map`.
#[inline]
pub(super) fn same_names(map: &[u32], ids: impl Iterator<Item = ObjId>, names: &[u32]) -> bool {
    let mut n = 0;
    for id in ids {
        if names.get(n) != Some(&name_of(map, id)) {
            return false;
        }
        n += 1;
    }
    n == names.len()
}
