//! A plain object memory implementing [`SharedMemory`], for tests and as a
//! stand-in for the engine's memory.

use std::collections::BTreeMap;

use super::types::{assemble, Addr, Payload, Range, SharedMemory};

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FlatMemoryError {
    #[error("object {0} does not exist")]
    NoSuchObject(u32),
    #[error("access to object {object} at {offset}+{len} is out of bounds")]
    OutOfBounds { object: u32, offset: u32, len: u32 },
}

/// Objects of fixed size, each a [`Payload`] (bytes plus pointer provenance).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FlatMemory {
    objects: BTreeMap<u32, Payload>,
}

impl FlatMemory {
    pub fn new() -> Self {
        FlatMemory::default()
    }

    /// Creates (or replaces) a zero-filled object.
    pub fn add_object(&mut self, object: u32, size: u32) {
        self.objects
            .insert(object, Payload::from_bytes(vec![0; size as usize]));
    }

    pub fn object(&self, object: u32) -> Option<&Payload> {
        self.objects.get(&object)
    }

    fn bounds(&self, range: Range) -> Result<&Payload, FlatMemoryError> {
        let object = self
            .objects
            .get(&range.addr.object)
            .ok_or(FlatMemoryError::NoSuchObject(range.addr.object))?;
        if range.end() > u64::from(object.len()) {
            return Err(FlatMemoryError::OutOfBounds {
                object: range.addr.object,
                offset: range.addr.offset,
                len: range.len,
            });
        }
        Ok(object)
    }
}

impl SharedMemory for FlatMemory {
    type Error = FlatMemoryError;

    fn read(&self, range: Range) -> Result<Payload, FlatMemoryError> {
        let object = self.bounds(range)?;
        let origins: Vec<_> = (0..range.len).map(|i| (0, range.addr.offset + i)).collect();
        Ok(assemble(&[object], &origins))
    }

    fn write(&mut self, addr: Addr, data: &Payload) -> Result<(), FlatMemoryError> {
        let range = Range {
            addr,
            len: data.len(),
        };
        let object = self.bounds(range)?;
        let start = addr.offset;
        let end = start + data.len();
        let origins: Vec<_> = (0..object.len())
            .map(|i| {
                if i >= start && i < end {
                    (1, i - start)
                } else {
                    (0, i)
                }
            })
            .collect();
        let merged = assemble(&[object, data], &origins);
        self.objects.insert(addr.object, merged);
        Ok(())
    }
}
