//! One store-buffer entry of the delayed-flush machine.

use super::types::{Payload, Range, ThreadId};

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

    pub(crate) fn serialize_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.range.addr.object.to_le_bytes());
        out.extend_from_slice(&self.range.addr.offset.to_le_bytes());
        out.extend_from_slice(&self.range.len.to_le_bytes());
        out.push(u8::from(self.flushed));
        out.extend_from_slice(&self.origin.to_le_bytes());
        self.payload.serialize_into(out);
        out.extend_from_slice(&(self.after.len() as u32).to_le_bytes());
        for (thread, count) in &self.after {
            out.extend_from_slice(&thread.to_le_bytes());
            out.extend_from_slice(&count.to_le_bytes());
        }
    }
}
