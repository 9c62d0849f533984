//! The conventional x86-TSO machine (Sewell et al.): one FIFO per thread, a
//! load reads the newest own entry per byte or memory, and the oldest entry of
//! any buffer may reach memory at any time (`flush_one`, scheduled by the
//! engine as an extra nondeterministic action). It is the judge the delayed-
//! flush buffers are tested against.

use std::collections::BTreeMap;

use super::bytes::Reader;
use super::error::{rmw_unbuffered, write_unbuffered, BufferError};
use super::types::{assemble, Addr, ByteOrigin, Choice, Payload, Range, SharedMemory, ThreadId};

/// An address as the engine's pointer (`(object << 32) | offset`).
fn address_pointer(addr: Addr) -> u64 {
    (u64::from(addr.object) << 32) | u64::from(addr.offset)
}

type Result<T, M> = std::result::Result<T, BufferError<<M as SharedMemory>::Error>>;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReferenceEntry {
    pub range: Range,
    pub payload: Payload,
    pub origin: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ReferenceBuffers {
    /// Oldest first; no empty buffer is stored.
    buffers: BTreeMap<ThreadId, Vec<ReferenceEntry>>,
}

impl ReferenceBuffers {
    pub fn new() -> Self {
        ReferenceBuffers::default()
    }

    /// These buffers with thread `t` renamed `new_of[t]` (thread symmetry).
    pub fn permute_threads(&self, new_of: &[ThreadId]) -> Option<ReferenceBuffers> {
        let mut buffers = BTreeMap::new();
        for (t, entries) in &self.buffers {
            buffers.insert(*new_of.get(*t as usize)?, entries.clone());
        }
        Some(ReferenceBuffers { buffers })
    }

    pub fn is_empty(&self, thread: ThreadId) -> bool {
        !self.buffers.contains_key(&thread)
    }

    pub(crate) fn len(&self, thread: ThreadId) -> usize {
        self.buffers.get(&thread).map_or(0, Vec::len)
    }

    pub fn entries(&self, thread: ThreadId) -> &[ReferenceEntry] {
        self.buffers.get(&thread).map_or(&[], |v| &v[..])
    }

    /// Deterministic serialisation, with every address and stored pointer renamed by
    /// `pointer` (the engine's canonical names). Counts come before every list, so
    /// entries cannot run into each other.
    pub fn serialize_mapped(&self, pointer: &mut dyn FnMut(u64) -> u64, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.buffers.len() as u32).to_le_bytes());
        for (thread, entries) in &self.buffers {
            out.extend_from_slice(&thread.to_le_bytes());
            out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
            for e in entries {
                let address = pointer(address_pointer(e.range.addr));
                out.extend_from_slice(&((address >> 32) as u32).to_le_bytes());
                out.extend_from_slice(&(address as u32).to_le_bytes());
                out.extend_from_slice(&e.range.len.to_le_bytes());
                out.extend_from_slice(&e.origin.to_le_bytes());
                let mut p = e.payload.clone();
                p.for_each_pointer_mut(|x| *x = pointer(*x));
                p.serialize_into(out);
            }
        }
    }

    /// The buffers [`Self::serialize_mapped`] wrote as `bytes` (all of them), with
    /// every address and stored pointer renamed back by `pointer`; `None` when they
    /// are not such bytes.
    pub fn decode(bytes: &[u8], pointer: &mut dyn FnMut(u64) -> u64) -> Option<Self> {
        let mut r = Reader::new(bytes);
        let threads = r.count(8)?;
        let mut buffers = BTreeMap::new();
        for _ in 0..threads {
            let thread = r.u32()?;
            let len = r.count(4 * 4 + 9)?;
            let mut entries = Vec::with_capacity(len);
            for _ in 0..len {
                let address = (u64::from(r.u32()?) << 32) | u64::from(r.u32()?);
                let addr = Addr::from_pointer(pointer(address));
                let range = Range::new(addr.object, addr.offset, r.u32()?);
                let origin = r.u32()?;
                let mut payload = Payload::decode_from(&mut r)?;
                if payload.len() != range.len {
                    return None;
                }
                payload.for_each_pointer_mut(|x| *x = pointer(*x));
                entries.push(ReferenceEntry {
                    range,
                    payload,
                    origin,
                });
            }
            // As kept: ascending threads, no empty buffer.
            if entries.is_empty() || buffers.last_key_value().is_some_and(|(&t, _)| t >= thread) {
                return None;
            }
            buffers.insert(thread, entries);
        }
        r.is_empty().then_some(ReferenceBuffers { buffers })
    }

    /// True if an entry of any buffer overlaps `range`.
    pub(crate) fn has_overlapping(&self, range: Range) -> bool {
        self.buffers
            .values()
            .flatten()
            .any(|e| e.range.overlaps(&range))
    }

    /// Store the "+d" rule lets bypass the buffers (no other thread can reach the
    /// memory, or none is running; `runtime/natives.rs` `unobserved`): written at
    /// once, unless an entry of some buffer overlaps it (then an ordinary store, so an
    /// older entry cannot overwrite it later). Such a store takes no buffer slot, as in
    /// the delayed-flush buffers (`StoreBuffers::store_unshared`): no other thread can
    /// read it before a synchronising step would have drained it anyway, and the
    /// writer reads its own newest store either way, so the choice only matters under a
    /// bound, where both machines must agree.
    #[allow(clippy::too_many_arguments)]
    pub fn store_unshared<M: SharedMemory>(
        &mut self,
        memory: &mut M,
        thread: ThreadId,
        range: Range,
        payload: Payload,
        origin: u32,
        bound: u32,
    ) -> Result<(), M> {
        if self.has_overlapping(range) {
            return self.store(memory, thread, range, payload, origin, bound);
        }
        write_unbuffered(memory, range, &payload)
    }

    /// Threads with a non-empty buffer (the ones `flush_one` can act on).
    pub fn threads(&self) -> impl Iterator<Item = ThreadId> + '_ {
        self.buffers.keys().copied()
    }

    /// Loads `range`: per byte the thread's newest entry, else memory.
    pub fn load<M: SharedMemory>(
        &self,
        memory: &M,
        thread: ThreadId,
        range: Range,
    ) -> Result<Payload, M> {
        let from_memory = memory.read(range).map_err(BufferError::Memory)?;
        let own = self.entries(thread);
        let mut sources: Vec<&Payload> = vec![&from_memory];
        sources.extend(own.iter().map(|e| &e.payload));
        let origins: Vec<ByteOrigin> = (0..range.len)
            .map(|i| {
                let off = range.start() + u64::from(i);
                own.iter()
                    .enumerate()
                    .rev()
                    .find(|(_, e)| e.range.contains_byte(range.addr.object, off))
                    .map_or((0, i), |(k, e)| (k + 1, (off - e.range.start()) as u32))
            })
            .collect();
        Ok(assemble(&sources, &origins))
    }

    /// Appends a store. With `bound` > 0 and a full buffer, the oldest entry
    /// is written first (the store would wait for it on real hardware).
    #[allow(clippy::too_many_arguments)]
    pub fn store<M: SharedMemory>(
        &mut self,
        memory: &mut M,
        thread: ThreadId,
        range: Range,
        payload: Payload,
        origin: u32,
        bound: u32,
    ) -> Result<(), M> {
        BufferError::check_length(range, &payload)?;
        if bound > 0 && self.len(thread) >= bound as usize {
            self.flush_one(memory, thread)?;
        }
        self.buffers
            .entry(thread)
            .or_default()
            .push(ReferenceEntry {
                range,
                payload,
                origin,
            });
        Ok(())
    }

    /// Before a memory operation: any buffer may write its oldest entry, any number of
    /// times, in any order (every choice is explored). Stopping leaves every remaining
    /// entry delayed past the operation; that count ranks counterexamples
    /// (`Choice::choose_flush`), flushing one more leaves the decision to the next choice.
    pub fn flush_any<M: SharedMemory, C: Choice + ?Sized>(
        &mut self,
        memory: &mut M,
        choice: &mut C,
    ) -> Result<(), M> {
        loop {
            let threads: Vec<ThreadId> = self.threads().collect();
            if threads.is_empty() {
                return Ok(());
            }
            let mut delayed = vec![0u32; threads.len() + 1];
            delayed[0] = threads.iter().map(|&t| self.len(t) as u32).sum();
            match choice.choose_flush(&delayed) {
                0 => return Ok(()),
                c => {
                    self.flush_one(memory, threads[c - 1])?;
                }
            }
        }
    }

    /// Writes the thread's oldest entry to memory. Returns false if it had none.
    pub fn flush_one<M: SharedMemory>(
        &mut self,
        memory: &mut M,
        thread: ThreadId,
    ) -> Result<bool, M> {
        let Some(buffer) = self.buffers.get_mut(&thread) else {
            return Ok(false);
        };
        let entry = buffer.remove(0);
        if buffer.is_empty() {
            self.buffers.remove(&thread);
        }
        memory
            .write(entry.range.addr, &entry.payload)
            .map_err(BufferError::Memory)?;
        Ok(true)
    }

    /// Writes the thread's whole buffer in order (mfence, thread exit). Other
    /// threads' flushes before it are the scheduler's business.
    pub fn drain<M: SharedMemory>(&mut self, memory: &mut M, thread: ThreadId) -> Result<(), M> {
        while self.flush_one(memory, thread)? {}
        Ok(())
    }

    /// Locked read-modify-write: drain, then operate on memory directly.
    pub fn locked_rmw<M: SharedMemory>(
        &mut self,
        memory: &mut M,
        thread: ThreadId,
        range: Range,
        update: impl FnOnce(&Payload) -> Option<Payload>,
    ) -> Result<Payload, M> {
        self.drain(memory, thread)?;
        rmw_unbuffered(memory, range, update)
    }

    /// Memory of `object` is released by `thread`: its own pending stores to
    /// it are dropped; another thread's pending store to it is a race.
    pub fn evict<E: std::error::Error + 'static>(
        &mut self,
        thread: ThreadId,
        object: u32,
    ) -> std::result::Result<(), BufferError<E>> {
        for (&t, entries) in &self.buffers {
            if t == thread {
                continue;
            }
            if let Some(e) = entries.iter().find(|e| e.range.addr.object == object) {
                return Err(BufferError::StoreToReleasedMemory {
                    thread: t,
                    origin: e.origin,
                });
            }
        }
        if let Some(own) = self.buffers.get_mut(&thread) {
            own.retain(|e| e.range.addr.object != object);
            if own.is_empty() {
                self.buffers.remove(&thread);
            }
        }
        Ok(())
    }
}
