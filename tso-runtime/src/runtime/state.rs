//! The store buffers as per-state data of the engine.

use crate::buffer::{Payload, ReferenceBuffers, StoreBuffers};
use std::any::Any;
use tso_engine::{make_ptr, ptr_parts, ExtState, State, ThreadId};

#[derive(Clone, Debug)]
pub enum Buffers {
    Lazy(StoreBuffers),
    Reference(ReferenceBuffers),
}

/// One buffered store as data (see [`TsoState::pending`]).
#[derive(Clone, Debug)]
pub struct PendingStore {
    pub thread: ThreadId,
    pub object: u32,
    pub offset: u32,
    pub len: u32,
    pub flushed: bool,
    /// The engine's location id of the store (`u32::MAX`: unknown).
    pub origin: u32,
    /// The stored value for people (`1`, `ptr 0x..`, `16 bytes`).
    pub value: String,
}

impl PendingStore {
    pub(crate) fn range(&self) -> crate::buffer::Range {
        crate::buffer::Range::new(self.object, self.offset, self.len)
    }
}

#[derive(Clone, Debug)]
pub struct TsoState {
    pub buffers: Buffers,
}

impl TsoState {
    pub(crate) fn new(reference: bool) -> TsoState {
        TsoState {
            buffers: if reference {
                Buffers::Reference(ReferenceBuffers::new())
            } else {
                Buffers::Lazy(StoreBuffers::new())
            },
        }
    }

    pub fn of(st: &State) -> Option<&TsoState> {
        st.ext_ref::<TsoState>()
    }

    pub fn is_empty(&self, tid: ThreadId) -> bool {
        match &self.buffers {
            Buffers::Lazy(b) => b.is_empty(tid),
            Buffers::Reference(b) => b.is_empty(tid),
        }
    }

    pub(crate) fn any_nonempty(&self) -> bool {
        match &self.buffers {
            Buffers::Lazy(b) => b.threads().next().is_some(),
            Buffers::Reference(b) => b.threads().next().is_some(),
        }
    }

    /// Every buffered entry: (thread, object, offset, payload, flushed, origin).
    fn for_each_entry(&self, mut f: impl FnMut(ThreadId, u32, u32, &Payload, bool, u32)) {
        match &self.buffers {
            Buffers::Lazy(b) => {
                for t in b.threads() {
                    for e in b.entries(t).iter() {
                        f(
                            t,
                            e.range.addr.object,
                            e.range.addr.offset,
                            &e.payload,
                            e.flushed,
                            e.origin,
                        );
                    }
                }
            }
            Buffers::Reference(b) => {
                for t in b.threads() {
                    for e in b.entries(t) {
                        f(
                            t,
                            e.range.addr.object,
                            e.range.addr.offset,
                            &e.payload,
                            false,
                            e.origin,
                        );
                    }
                }
            }
        }
    }

    /// Every buffered store, oldest first per thread.
    pub(crate) fn pending(&self) -> Vec<PendingStore> {
        let mut all = Vec::new();
        self.for_each_entry(|thread, object, offset, payload, flushed, origin| {
            all.push(PendingStore {
                thread,
                object,
                offset,
                len: payload.len(),
                flushed,
                origin,
                value: payload_value(payload, &|p| format!("ptr {p:#x}"), &|v, bytes| {
                    signed(v, bytes).to_string()
                }),
            })
        });
        all
    }

    /// One thread's entries, oldest first, for people: (`x=1`, origin, flushed).
    /// `show` names the memory an entry writes and shows the values stored there.
    pub(crate) fn items(
        &self,
        tid: ThreadId,
        show: &dyn ShowMemory,
        loc: &dyn Fn(u32) -> String,
    ) -> Vec<(String, String, bool)> {
        let mut items = Vec::new();
        self.for_each_entry(|t, obj, off, payload, flushed, origin| {
            if t == tid {
                let at = make_ptr(obj, off);
                items.push((
                    format!(
                        "{}={}",
                        show.name(at),
                        payload_value(payload, &|p| show.pointer(p), &|v, bytes| show
                            .scalar(at, v, bytes))
                    ),
                    loc(origin),
                    flushed,
                ));
            }
        });
        items
    }

    /// `[x=1 (sb.c:12), y=1 (flushed)]` for one thread.
    pub(crate) fn describe(
        &self,
        tid: ThreadId,
        show: &dyn ShowMemory,
        loc: &dyn Fn(u32) -> String,
    ) -> String {
        let items: Vec<String> = self
            .items(tid, show, loc)
            .into_iter()
            .map(|(item, origin, flushed)| {
                format!(
                    "{item} ({})",
                    if flushed {
                        "flushed".to_string()
                    } else {
                        origin
                    }
                )
            })
            .collect();
        format!("[{}]", items.join(", "))
    }

    /// Threads with buffered entries.
    pub fn threads(&self) -> Vec<ThreadId> {
        match &self.buffers {
            Buffers::Lazy(b) => b.threads().collect(),
            Buffers::Reference(b) => b.threads().collect(),
        }
    }
}

/// How buffer notes show memory, in source terms.
pub(crate) trait ShowMemory {
    /// The memory at an address: `q.slots[1]`.
    fn name(&self, at: u64) -> String;
    /// A pointer stored there: `&pool[2]`.
    fn pointer(&self, p: u64) -> String;
    /// An integer of `bytes` bytes stored at `at`, in the type declared there.
    fn scalar(&self, at: u64, value: u64, bytes: u32) -> String;
}

fn payload_value(
    p: &Payload,
    pointer: &dyn Fn(u64) -> String,
    int: &dyn Fn(u64, u32) -> String,
) -> String {
    if p.data.len() <= 8 {
        let mut buf = [0u8; 8];
        buf[..p.data.len()].copy_from_slice(&p.data);
        let v = u64::from_le_bytes(buf);
        if p.ptr_offsets.contains(&0) {
            pointer(v)
        } else {
            int(v, p.data.len() as u32)
        }
    } else {
        format!("{} bytes", p.data.len())
    }
}

/// `v`'s low `bytes` bytes, sign-extended: how an integer of no known type reads.
fn signed(v: u64, bytes: u32) -> i64 {
    let bits = (bytes * 8).clamp(8, 64);
    ((v << (64 - bits)) as i64) >> (64 - bits)
}

impl ExtState for TsoState {
    fn clone_box(&self) -> Box<dyn ExtState> {
        Box::new(self.clone())
    }

    fn for_each_pointer(&self, f: &mut dyn FnMut(u64)) {
        self.for_each_entry(|_, obj, off, payload, _, _| {
            f(make_ptr(obj, off));
            for &o in &payload.ptr_offsets {
                let s = o as usize;
                if let Some(b) = payload.data.get(s..s + 8) {
                    f(u64::from_le_bytes(b.try_into().unwrap_or([0; 8])));
                }
            }
        });
    }

    fn serialize(&self, map: &mut dyn FnMut(u64) -> u64, out: &mut Vec<u8>) {
        match &self.buffers {
            Buffers::Lazy(b) => b.serialize_mapped(map, out),
            Buffers::Reference(b) => b.serialize_mapped(map, out),
        }
    }

    fn decode(&self, bytes: &[u8], unmap: &mut dyn FnMut(u64) -> u64) -> Option<Box<dyn ExtState>> {
        let buffers = match &self.buffers {
            Buffers::Lazy(_) => {
                let mut b = StoreBuffers::decode(bytes)?;
                b.for_each_object_mut(|o| *o = ptr_parts(unmap(make_ptr(*o, 0))).0);
                b.for_each_pointer_mut(|p| *p = unmap(*p));
                Buffers::Lazy(b)
            }
            Buffers::Reference(_) => Buffers::Reference(ReferenceBuffers::decode(bytes, unmap)?),
        };
        Some(Box::new(TsoState { buffers }))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn objects_of_thread(&self, tid: ThreadId) -> Option<Vec<u32>> {
        match &self.buffers {
            Buffers::Lazy(b) => Some(b.entries(tid).iter().map(|e| e.range.addr.object).collect()),
            // Its fences depend on every buffer.
            Buffers::Reference(_) => None,
        }
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    /// The buffers are the only per-thread data; their owners and the entries'
    /// ordering facts are renamed.
    fn permute_threads(&self, new_of: &[ThreadId]) -> Option<Box<dyn ExtState>> {
        let buffers = match &self.buffers {
            Buffers::Lazy(b) => Buffers::Lazy(b.permute_threads(new_of)?),
            Buffers::Reference(b) => Buffers::Reference(b.permute_threads(new_of)?),
        };
        Some(Box::new(TsoState { buffers }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::{Choice, FlatMemory, Range};

    const X: u32 = 1;
    const Y: u32 = 2;
    const Z: u32 = 3;

    /// Always takes the same option.
    struct Take(usize);

    impl Choice for Take {
        fn choose(&mut self, n: usize) -> usize {
            self.0.min(n - 1)
        }
    }

    /// Canonical names differ from the state's: objects are shifted by 100.
    fn map(p: u64) -> u64 {
        let (object, offset) = ptr_parts(p);
        make_ptr(object + 100, offset)
    }

    fn unmap(p: u64) -> u64 {
        let (object, offset) = ptr_parts(p);
        make_ptr(object - 100, offset)
    }

    fn with_undefined_byte() -> Payload {
        Payload {
            data: vec![1, 2, 3, 4],
            ptr_offsets: Vec::new(),
            undef: vec![0, 0xff, 0, 0],
        }
    }

    fn memory() -> FlatMemory {
        let mut mem = FlatMemory::new();
        for object in [X, Y, Z] {
            mem.add_object(object, 16);
        }
        mem
    }

    /// Serialises, decodes and serialises again; the bytes must be identical and the
    /// rebuilt buffers equal to the original.
    fn round_trip(state: &TsoState) -> Vec<u8> {
        let mut bytes = Vec::new();
        state.serialize(&mut map, &mut bytes);
        let rebuilt = state.decode(&bytes, &mut unmap).expect("decodes");
        let mut again = Vec::new();
        rebuilt.serialize(&mut map, &mut again);
        assert_eq!(again, bytes, "serialize → decode → serialize");
        let rebuilt = rebuilt
            .as_any()
            .downcast_ref::<TsoState>()
            .expect("a TsoState");
        match (&state.buffers, &rebuilt.buffers) {
            (Buffers::Lazy(a), Buffers::Lazy(b)) => assert_eq!(a, b),
            (Buffers::Reference(a), Buffers::Reference(b)) => assert_eq!(a, b),
            _ => panic!("decoded into another kind of buffers"),
        }
        // Truncated or extended bytes are not buffers.
        assert!(state
            .decode(&bytes[..bytes.len() - 1], &mut unmap)
            .is_none());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(state.decode(&longer, &mut unmap).is_none());
        bytes
    }

    #[test]
    fn delayed_flush_buffers_round_trip() {
        let mut mem = memory();
        let mut b = StoreBuffers::new();
        let x = Range::new(X, 0, 4);
        let y = Range::new(Y, 0, 8);
        let z = Range::new(Z, 8, 8);
        let p = |b: &mut StoreBuffers, mem: &mut FlatMemory, t, r, v: Payload, o| {
            b.store(mem, &mut Take(0), t, r, v, o, 0).expect("store")
        };
        p(&mut b, &mut mem, 1, x, Payload::from_int(1, 4), 10);
        p(
            &mut b,
            &mut mem,
            1,
            y,
            Payload::from_pointer(make_ptr(Z, 8)),
            11,
        );
        p(&mut b, &mut mem, 1, x, with_undefined_byte(), 12);
        // Thread 0 reads x←2: both x stores are written, y←ptr becomes flushed.
        b.load(&mut mem, &mut Take(2), 0, x).expect("load");
        assert_eq!(b.entries(1).len(), 1);
        assert!(b.entries(1)[0].flushed);
        // Stores after it are ordered after the flushed entry of thread 1.
        p(
            &mut b,
            &mut mem,
            2,
            z,
            Payload::from_pointer(make_ptr(Y, 0)),
            20,
        );
        p(&mut b, &mut mem, 2, x, Payload::from_int(7, 4), 21);
        assert_eq!(b.entries(2)[0].after_count(1), 1);
        let state = TsoState {
            buffers: Buffers::Lazy(b),
        };
        let bytes = round_trip(&state);
        // The canonical names are in the bytes, not the state's.
        assert!(bytes.windows(4).any(|w| w == (Z + 100).to_le_bytes()));
        round_trip(&TsoState::new(false));
    }

    #[test]
    fn reference_buffers_round_trip() {
        let mut mem = memory();
        let mut b = ReferenceBuffers::new();
        let stores = [
            (1, Range::new(X, 4, 4), Payload::from_int(5, 4)),
            (
                1,
                Range::new(Y, 0, 8),
                Payload::from_pointer(make_ptr(X, 4)),
            ),
            (3, Range::new(Z, 0, 4), with_undefined_byte()),
            (
                0,
                Range::new(X, 0, 8),
                Payload::from_pointer(make_ptr(Z, 0)),
            ),
        ];
        for (origin, (t, r, v)) in stores.into_iter().enumerate() {
            b.store(&mut mem, t, r, v, origin as u32, 0).expect("store");
        }
        let state = TsoState {
            buffers: Buffers::Reference(b),
        };
        round_trip(&state);
        round_trip(&TsoState::new(true));
    }
}
