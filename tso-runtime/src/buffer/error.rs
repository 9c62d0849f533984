//! Errors of the store-buffer machines.

use super::types::{Payload, Range, SharedMemory, ThreadId};

/// What can go wrong in a store-buffer operation. `E` is the engine memory's error.
#[derive(Debug, thiserror::Error)]
pub enum BufferError<E: std::error::Error + 'static> {
    /// Reading or writing shared memory failed (out of bounds, freed object, ...).
    #[error("memory access failed: {0}")]
    Memory(#[source] E),
    /// Memory is being released while another thread still has a store to it
    /// that may not have reached memory yet: a race between free and a store.
    #[error("thread {thread} has a store (origin {origin}) to memory that is being released")]
    StoreToReleasedMemory { thread: ThreadId, origin: u32 },
    /// A payload does not have the length of the range it is stored to.
    #[error("payload of {actual} bytes stored to a range of {expected} bytes")]
    PayloadLength { expected: u32, actual: u32 },
    /// The number of distinct flush outcomes of one operation exceeded the limit.
    #[error("more than {limit} distinct store-buffer flush outcomes in one operation")]
    TooManyOutcomes { limit: usize },
    /// No flush outcome is consistent with the recorded ordering facts: a bug
    /// in the buffers, reported instead of silently skipping the operation.
    #[error("internal: no consistent store-buffer flush outcome")]
    NoConsistentOutcome,
    /// A locked read-modify-write returned a value of the wrong length.
    #[error("read-modify-write produced {actual} bytes for a {expected}-byte location")]
    RmwLength { expected: u32, actual: u32 },
}

impl<E: std::error::Error + 'static> BufferError<E> {
    /// `PayloadLength` unless `payload` fills `range` exactly.
    pub(crate) fn check_length(range: Range, payload: &Payload) -> Result<(), Self> {
        if payload.len() == range.len {
            Ok(())
        } else {
            Err(BufferError::PayloadLength {
                expected: range.len,
                actual: payload.len(),
            })
        }
    }
}

/// A store written straight to memory, past every buffer (the "+d" rule of both
/// machines, when no buffered entry overlaps it).
pub(crate) fn write_unbuffered<M: SharedMemory>(
    memory: &mut M,
    range: Range,
    payload: &Payload,
) -> Result<(), BufferError<M::Error>> {
    BufferError::check_length(range, payload)?;
    memory
        .write(range.addr, payload)
        .map_err(BufferError::Memory)
}

/// The memory half of a locked read-modify-write, once no buffer holds a store that
/// could land on `range` after it (both machines drain or settle first): read, let
/// `update` compute the new value, write it back.
pub(crate) fn rmw_unbuffered<M: SharedMemory>(
    memory: &mut M,
    range: Range,
    update: impl FnOnce(&Payload) -> Option<Payload>,
) -> Result<Payload, BufferError<M::Error>> {
    let old = memory.read(range).map_err(BufferError::Memory)?;
    if let Some(new) = update(&old) {
        if new.len() != range.len {
            return Err(BufferError::RmwLength {
                expected: range.len,
                actual: new.len(),
            });
        }
        memory
            .write(range.addr, &new)
            .map_err(BufferError::Memory)?;
    }
    Ok(old)
}
