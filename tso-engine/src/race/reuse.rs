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
//!
//! Where the race data changes on almost every transition (a lock taken and released
//! around each access), looking up and holding entries costs more than it saves:
//! after a sample of `SAMPLE` serialisations with fewer than one hit in four the cache
//! stays off for `PAUSE` serialisations, then samples again (`wanted`). A cache never
//! changes a result, so this changes only the time.

use super::RaceState;
use crate::memory::ObjId;
use smallvec::SmallVec;
use std::sync::Arc;

/// log2 of the number of slots (direct-mapped by address).
const SLOT_BITS: u32 = 6;

/// Serialisations per sample of the hit rate, and how many are done without the cache
/// after a sample with too few hits.
const SAMPLE: u32 = 4096;
const PAUSE: u64 = 15 * SAMPLE as u64;

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
    /// Serialisations so far, and the first at which the cache is on again.
    serialised: u64,
    off_until: u64,
    /// Lookups and hits in the present sample.
    lookups: u32,
    hits: u32,
}

impl RaceReuse {
    /// Whether to use the cache for the next serialisation (see the module
    /// documentation).
    pub(crate) fn wanted(&mut self) -> bool {
        self.serialised += 1;
        self.serialised >= self.off_until
    }

    /// Count a lookup; at the end of a sample with too few hits, pause.
    pub(crate) fn note(&mut self, hit: bool) {
        self.lookups += 1;
        self.hits += hit as u32;
        if self.lookups == SAMPLE {
            if self.hits * 4 < self.lookups {
                self.off_until = self.serialised + PAUSE;
                self.slots.clear();
            }
            self.lookups = 0;
            self.hits = 0;
        }
    }

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
        for (&(o, _), _) in self.messages.iter() {
            f(o);
        }
        for (&o, _) in self.shadow.iter() {
            f(o);
        }
        for (&o, _) in self.pending.iter() {
            f(o);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sample with too few hits pauses the cache for `PAUSE` serialisations and drops
    /// its entries; a sample with enough keeps it on.
    #[test]
    fn the_cache_pauses_after_a_sample_with_few_hits() {
        let mut c = RaceReuse::default();
        let item = Arc::new(RaceState::new());
        for i in 0..SAMPLE {
            assert!(c.wanted());
            c.note(i % 3 == 0);
        }
        c.insert(&item, &[1], 1);
        c.remember(RaceReuse::slot_of(&item), Arc::as_ptr(&item), 0, 1, 7);
        assert!(c.known(&item, &[1], 1).is_some());
        for i in 0..SAMPLE {
            assert!(c.wanted());
            c.note(i % 5 == 0);
        }
        assert!(c.known(&item, &[1], 1).is_none());
        for _ in 0..PAUSE - 1 {
            assert!(!c.wanted());
        }
        assert!(c.wanted());
    }
}
