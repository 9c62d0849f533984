//! The race data's chunk ids reused while it is unchanged: most transitions (a thread
//! reading a flag again, a loop of local work) leave the race data as it was, and a
//! successor then shares its parent's `RaceState` as the same `Arc`. This per-worker
//! cache keeps, per `Arc` whose serialisation was stored, a clone of it, what else the
//! bytes depended on (the `context`) and the chunk ids the store gave them, so such a
//! state's race data is neither serialised nor hashed again. Exact because:
//! - holding a clone keeps the count above one, so `Arc::make_mut` copies before any
//!   change: the same pointer always means the same contents;
//! - `RaceState::serialize` reads nothing but the contents, which threads run and are
//!   live, and the new numbers of the objects it names (`RaceState::for_each_object`),
//!   which the context holds and which are compared in full before ids are reused;
//! - ids are kept with the store's generation and used only with the same store.

use super::RaceState;
use crate::memory::ObjId;
use smallvec::SmallVec;
use std::sync::Arc;

/// log2 of the number of slots (direct-mapped by address).
const SLOT_BITS: u32 = 6;

/// The context of one serialisation: the thread count, each thread's
/// (running, live) bits, then the new number of each object the data names.
pub(crate) type Context = SmallVec<[u32; 16]>;

struct Entry {
    item: Arc<RaceState>,
    context: Context,
    /// `(store generation << 32) | chunk id` of each chunk, 0 while unknown.
    chunks: SmallVec<[u64; 4]>,
}

/// A direct-mapped cache of the race data's chunk ids by `Arc` address.
#[derive(Default)]
pub(crate) struct RaceReuse {
    slots: Vec<Option<Entry>>,
}

impl RaceReuse {
    fn slot_of(item: &Arc<RaceState>) -> usize {
        let a = Arc::as_ptr(item) as usize as u64;
        (a.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SLOT_BITS)) as usize
    }

    /// The chunk ids `item` was stored with in this context by the store of
    /// `generation`, if all are known.
    pub(crate) fn known(
        &self,
        item: &Arc<RaceState>,
        context: &[u32],
        generation: u32,
    ) -> Option<impl Iterator<Item = u32> + '_> {
        let e = self.slots.get(Self::slot_of(item))?.as_ref()?;
        let valid = Arc::ptr_eq(&e.item, item)
            && e.context[..] == *context
            && !e.chunks.is_empty()
            && e.chunks.iter().all(|&c| c >> 32 == generation as u64);
        valid.then(|| e.chunks.iter().map(|&c| c as u32))
    }

    /// Make `item`, serialised in `context` as `chunks` chunks, the entry of its slot;
    /// returns the slot, where `remember` puts the ids.
    pub(crate) fn insert(
        &mut self,
        item: &Arc<RaceState>,
        context: &[u32],
        chunks: usize,
    ) -> usize {
        if self.slots.is_empty() {
            self.slots.resize_with(1 << SLOT_BITS, || None);
        }
        let slot = Self::slot_of(item);
        let entry = match self.slots[slot].take() {
            Some(mut e) => {
                e.item = item.clone();
                e.context.clear();
                e.context.extend_from_slice(context);
                e.chunks.clear();
                e
            }
            None => Entry {
                item: item.clone(),
                context: Context::from_slice(context),
                chunks: SmallVec::new(),
            },
        };
        self.slots[slot] = Some(Entry {
            chunks: smallvec::smallvec![0; chunks],
            ..entry
        });
        slot
    }

    /// The store gave chunk `index` of the entry at `slot` (if it still holds the `Arc`
    /// at `item`) the id `id`.
    pub(crate) fn remember(
        &mut self,
        slot: usize,
        item: *const RaceState,
        index: usize,
        generation: u32,
        id: u32,
    ) {
        let Some(Some(e)) = self.slots.get_mut(slot) else {
            return;
        };
        if std::ptr::eq(Arc::as_ptr(&e.item), item) {
            if let Some(c) = e.chunks.get_mut(index) {
                *c = (generation as u64) << 32 | id as u64;
            }
        }
    }
}

impl RaceState {
    /// Every object the serialised form names, in a fixed order for the same contents
    /// (`reuse.rs` compares their new numbers).
    pub(crate) fn for_each_object(&self, mut f: impl FnMut(ObjId)) {
        for (&(o, _), _) in self.sync.iter() {
            if o != 0 {
                f(o);
            }
        }
        for (&o, _) in self.shadow.iter() {
            f(o);
        }
        for (&o, _) in self.pending.iter() {
            f(o);
        }
    }
}
