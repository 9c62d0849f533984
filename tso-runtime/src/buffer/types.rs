//! Addresses, byte ranges and payloads shared by both store-buffer machines.

use super::bytes::Reader;

/// Thread identifier as the engine numbers threads.
pub type ThreadId = u32;

/// A byte address inside an engine object. The engine's pointers are
/// `(object << 32) | offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Addr {
    pub object: u32,
    pub offset: u32,
}

impl Addr {
    pub(crate) fn new(object: u32, offset: u32) -> Self {
        Addr { object, offset }
    }

    pub fn from_pointer(pointer: u64) -> Self {
        Addr {
            object: (pointer >> 32) as u32,
            offset: pointer as u32,
        }
    }
}

/// A contiguous byte range `[addr.offset, addr.offset + len)` of one object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Range {
    pub addr: Addr,
    pub len: u32,
}

impl Range {
    pub fn new(object: u32, offset: u32, len: u32) -> Self {
        Range {
            addr: Addr { object, offset },
            len,
        }
    }

    pub(crate) fn start(&self) -> u64 {
        u64::from(self.addr.offset)
    }

    pub(crate) fn end(&self) -> u64 {
        u64::from(self.addr.offset) + u64::from(self.len)
    }

    /// Byte overlap (mixed sizes and unaligned ranges included).
    pub(crate) fn overlaps(&self, other: &Range) -> bool {
        self.addr.object == other.addr.object
            && self.start() < other.end()
            && other.start() < self.end()
    }

    pub(crate) fn contains_byte(&self, object: u32, offset: u64) -> bool {
        self.addr.object == object && self.start() <= offset && offset < self.end()
    }
}

/// Width of a pointer in a payload.
pub const POINTER_SIZE: u32 = 8;

/// Bytes plus pointer provenance: `ptr_offsets` lists (sorted) the offsets at
/// which an 8-byte pointer starts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Payload {
    pub data: Vec<u8>,
    pub ptr_offsets: Vec<u32>,
    /// Per byte, the bits never written (1 = undefined), as the engine's memory keeps
    /// them; empty when every bit is defined. A buffered store carries the definedness
    /// of what it stores to memory and to the loads it forwards to.
    pub undef: Vec<u8>,
}

impl Payload {
    pub(crate) fn from_bytes(data: Vec<u8>) -> Self {
        Payload {
            data,
            ptr_offsets: Vec::new(),
            undef: Vec::new(),
        }
    }

    /// Little-endian integer of `len` bytes (`len` ≤ 8).
    pub fn from_int(value: u64, len: u32) -> Self {
        Payload::from_u128(u128::from(value), len.min(8))
    }

    /// Little-endian integer of `len` bytes (`len` ≤ 16: up to `cmpxchg16b`'s width).
    pub fn from_u128(value: u128, len: u32) -> Self {
        let bytes = value.to_le_bytes();
        let len = (len as usize).min(16);
        Payload::from_bytes(bytes[..len].to_vec())
    }

    /// An 8-byte engine pointer with provenance.
    pub fn from_pointer(pointer: u64) -> Self {
        Payload {
            data: pointer.to_le_bytes().to_vec(),
            ptr_offsets: vec![0],
            undef: Vec::new(),
        }
    }

    pub(crate) fn len(&self) -> u32 {
        self.data.len() as u32
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The payload read as a little-endian integer (first 8 bytes at most).
    pub fn to_int(&self) -> u64 {
        let mut bytes = [0u8; 8];
        let n = self.data.len().min(8);
        bytes[..n].copy_from_slice(&self.data[..n]);
        u64::from_le_bytes(bytes)
    }

    /// The payload read as a little-endian integer (first 16 bytes at most).
    pub fn to_u128(&self) -> u128 {
        let mut bytes = [0u8; 16];
        let n = self.data.len().min(16);
        bytes[..n].copy_from_slice(&self.data[..n]);
        u128::from_le_bytes(bytes)
    }

    pub(crate) fn is_pointer_at(&self, offset: u32) -> bool {
        self.ptr_offsets.binary_search(&offset).is_ok()
    }

    /// Calls `f` on every pointer value held, so the engine can renumber objects.
    pub(crate) fn for_each_pointer_mut(&mut self, mut f: impl FnMut(&mut u64)) {
        for &offset in &self.ptr_offsets {
            let start = offset as usize;
            let Some(slot) = self.data.get_mut(start..start + POINTER_SIZE as usize) else {
                continue;
            };
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(slot);
            let mut value = u64::from_le_bytes(bytes);
            f(&mut value);
            slot.copy_from_slice(&value.to_le_bytes());
        }
    }

    pub(crate) fn serialize_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.data.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.data);
        out.extend_from_slice(&(self.ptr_offsets.len() as u32).to_le_bytes());
        for offset in &self.ptr_offsets {
            out.extend_from_slice(&offset.to_le_bytes());
        }
        if self.undef.is_empty() {
            out.push(0);
        } else {
            out.push(1);
            out.extend_from_slice(&self.undef);
        }
    }

    /// The payload `serialize_into` wrote (definedness is one byte per data byte).
    pub(crate) fn decode_from(r: &mut Reader<'_>) -> Option<Payload> {
        let len = r.count(1)?;
        let data = r.take(len)?.to_vec();
        let ptrs = r.count(4)?;
        let ptr_offsets = (0..ptrs).map(|_| r.u32()).collect::<Option<Vec<u32>>>()?;
        let undef = if r.bool()? {
            r.take(len)?.to_vec()
        } else {
            Vec::new()
        };
        Some(Payload {
            data,
            ptr_offsets,
            undef,
        })
    }
}

/// Where one byte of an assembled payload comes from: `(source index, offset in source)`.
pub(crate) type ByteOrigin = (usize, u32);

/// Builds a payload byte by byte from several sources. A pointer survives only
/// when all of its 8 bytes come, in order, from one pointer of one source.
pub(crate) fn assemble(sources: &[&Payload], origins: &[ByteOrigin]) -> Payload {
    let data: Vec<u8> = origins
        .iter()
        .map(|&(source, offset)| sources[source].data[offset as usize])
        .collect();
    let mut ptr_offsets = Vec::new();
    let width = POINTER_SIZE as usize;
    for start in 0..origins.len() {
        if start + width > origins.len() {
            break;
        }
        let (source, offset) = origins[start];
        if !sources[source].is_pointer_at(offset) {
            continue;
        }
        let intact = (1..width).all(|i| origins[start + i] == (source, offset + i as u32));
        if intact {
            ptr_offsets.push(start as u32);
        }
    }
    // Definedness travels byte by byte with the data.
    let undef = if sources.iter().all(|s| s.undef.is_empty()) {
        Vec::new()
    } else {
        let u: Vec<u8> = origins
            .iter()
            .map(|&(source, offset)| {
                sources[source]
                    .undef
                    .get(offset as usize)
                    .copied()
                    .unwrap_or(0)
            })
            .collect();
        if u.iter().all(|&b| b == 0) {
            Vec::new()
        } else {
            u
        }
    };
    Payload {
        data,
        ptr_offsets,
        undef,
    }
}

/// The engine's shared memory as seen by the store buffers.
pub trait SharedMemory {
    type Error: std::error::Error + 'static;
    fn read(&self, range: Range) -> Result<Payload, Self::Error>;
    fn write(&mut self, addr: Addr, data: &Payload) -> Result<(), Self::Error>;
}

/// A nondeterministic choice the engine explores exhaustively: returns a
/// value in `0..n`. The buffers never ask with `n < 2`.
pub trait Choice {
    fn choose(&mut self, n: usize) -> usize;
    /// A flush choice where option `i` leaves `delayed[i]` stores delayed.
    fn choose_flush(&mut self, delayed: &[u32]) -> usize {
        self.choose(delayed.len())
    }
}
