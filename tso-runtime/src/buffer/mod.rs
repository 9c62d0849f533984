//! x86-TSO store buffers, independent of the engine.
//!
//! - [`StoreBuffers`]: the delayed-flush encoding (§3.1 of the paper cited in
//!   ARCHITECTURE.md, "Semantics"): flushes are
//!   decided only when a load, fence, locked operation or eviction could
//!   observe them, and each such operation asks the engine for at most one
//!   choice, among its distinct outcomes.
//! - [`ReferenceBuffers`]: the conventional machine with an explicit
//!   `flush_one` action, the judge in differential tests.
//!
//! Both talk to memory through [`SharedMemory`] and to the explorer through
//! [`Choice`].
//!
//! Where the delayed-flush machine goes beyond the paper (each found or
//! confirmed by the differential test against the reference machine):
//! - matching is the overlap *closure* of the accessed range over all
//!   buffered entries, so mixed-size stores are ordered consistently;
//! - the loading thread's own entries take part (its store may have reached
//!   memory and been overwritten by another thread before the load); the
//!   choice is skipped only when nothing but its own unflushed entries match;
//! - an entry a load proves not yet written is recorded as coming after every
//!   entry already written (`Entry::after`), and anything that followed a
//!   written entry inherits what the chosen order put before it; the paper's
//!   flag alone would let a flushed store be placed after one proved later;
//! - a flushed entry wholly overwritten by newer flushed entries of its own
//!   buffer is forgotten (it can never be read again);
//! - `evict` reports another thread's unflushed store to the released object
//!   as `StoreToReleasedMemory` (a race with free); flushed ones are dropped.

mod byte_spans;
pub(crate) mod bytes;
mod entry;
mod entry_list;
mod error;
mod flat_memory;
mod fx_hash;
mod lazy;
mod memo;
mod reference;
mod resolve;
mod types;

pub use entry::Entry;
pub use entry_list::EntryList;
pub use error::BufferError;
pub use flat_memory::{FlatMemory, FlatMemoryError};
pub use lazy::{StoreBuffers, MAX_OUTCOMES};
pub use reference::{ReferenceBuffers, ReferenceEntry};
pub use types::{Addr, Choice, Payload, Range, SharedMemory, ThreadId, POINTER_SIZE};

#[cfg(test)]
mod tests;
