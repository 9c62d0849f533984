//! x86-TSO store buffers, independent of the engine.
//!
//! - [`StoreBuffers`]: the delayed-flush encoding (seed §3.1): flushes are
//!   decided only when a load, fence, locked operation or eviction could
//!   observe them, and each such operation asks the engine for at most one
//!   choice, among its distinct outcomes.
//! - [`ReferenceBuffers`]: the conventional machine with an explicit
//!   `flush_one` action, the judge in differential tests.
//!
//! Both talk to memory through [`SharedMemory`] and to the explorer through
//! [`Choice`].

mod entry;
mod error;
mod flat_memory;
mod lazy;
mod reference;
mod resolve;
mod types;

pub use entry::Entry;
pub use error::BufferError;
pub use flat_memory::{FlatMemory, FlatMemoryError};
pub use lazy::{StoreBuffers, MAX_OUTCOMES};
pub use reference::{ReferenceBuffers, ReferenceEntry};
pub use types::{Addr, Choice, Payload, Range, SharedMemory, ThreadId, POINTER_SIZE};

#[cfg(test)]
mod tests;
