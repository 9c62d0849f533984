//! One store-buffer entry of the delayed-flush machine.

use super::bytes::Reader;
use super::types::{Addr, Payload, Range, ThreadId};

/// A buffered store. `flushed` entries have already reached memory in every
/// execution the state stands for, but their place among the other buffers'
/// writes to the same bytes is still open ("delayed flushing", §3.1 of
/// "Model Checking of C++ Programs under the x86-TSO Memory Model").
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    pub range: Range,
    pub payload: Payload,
    pub flushed: bool,
    /// Opaque to the buffers; the engine uses it for source locations.
    pub origin: u32,
    /// Ordering facts decided by earlier loads: for each other thread, how many
    /// of its oldest entries are known to reach memory before this one. Sorted
    /// by thread, no zero counts. Only flushed entries are ever counted.
    pub(crate) after: Vec<(ThreadId, u32)>,
}

impl Entry {
    pub(crate) fn new(range: Range, payload: Payload, origin: u32) -> Self {
        Entry {
            range,
            payload,
            flushed: false,
            origin,
            after: Vec::new(),
        }
    }

    /// How many of `thread`'s oldest entries must reach memory before this one.
    pub(crate) fn after_count(&self, thread: ThreadId) -> u32 {
        self.after
            .iter()
            .find(|(t, _)| *t == thread)
            .map_or(0, |(_, count)| *count)
    }

    /// Fewest bytes [`Self::serialize_mapped`] writes for one entry.
    pub(crate) const MIN_SERIALIZED: usize = 4 * 3 + 1 + 4 + (4 + 4 + 1) + 4;

    /// The entry's bytes with the pointers it stores, and its object (as the pointer
    /// to the object's start), renamed by `pointer` (the engine's canonical names).
    pub(crate) fn serialize_mapped(&self, pointer: &mut dyn FnMut(u64) -> u64, out: &mut Vec<u8>) {
        let object = Addr::from_pointer(pointer(u64::from(self.range.addr.object) << 32)).object;
        out.extend_from_slice(&object.to_le_bytes());
        out.extend_from_slice(&self.range.addr.offset.to_le_bytes());
        out.extend_from_slice(&self.range.len.to_le_bytes());
        out.push(u8::from(self.flushed));
        out.extend_from_slice(&self.origin.to_le_bytes());
        if self.payload.ptr_offsets.is_empty() {
            self.payload.serialize_into(out);
        } else {
            let mut payload = self.payload.clone();
            payload.for_each_pointer_mut(|p| *p = pointer(*p));
            payload.serialize_into(out);
        }
        out.extend_from_slice(&(self.after.len() as u32).to_le_bytes());
        for (thread, count) in &self.after {
            out.extend_from_slice(&thread.to_le_bytes());
            out.extend_from_slice(&count.to_le_bytes());
        }
    }

    /// The entry [`Self::serialize_mapped`] wrote (names as written).
    pub(crate) fn decode_from(r: &mut Reader<'_>) -> Option<Entry> {
        let range = Range::new(r.u32()?, r.u32()?, r.u32()?);
        let flushed = r.bool()?;
        let origin = r.u32()?;
        let payload = Payload::decode_from(r)?;
        if payload.len() != range.len {
            return None;
        }
        let n = r.count(8)?;
        let after = (0..n)
            .map(|_| Some((r.u32()?, r.u32()?)))
            .collect::<Option<Vec<(ThreadId, u32)>>>()?;
        Some(Entry {
            range,
            payload,
            flushed,
            origin,
            after,
        })
    }
}
