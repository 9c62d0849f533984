//! The store buffers as per-state data of the engine.

use crate::buffer::{Payload, ReferenceBuffers, StoreBuffers};
use std::any::Any;
use tso_engine::state::{ExtState, State, ThreadId};
use tso_engine::value::{make_ptr, ptr_parts};

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
                    for e in b.entries(t) {
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
                value: payload_value(payload, &|p| format!("ptr {p:#x}")),
            })
        });
        all
    }

    /// One thread's entries, oldest first, for people: (`x=1`, origin, flushed).
    /// `name` names the memory an entry writes, `pointer` a stored pointer value.
    pub(crate) fn items(
        &self,
        tid: ThreadId,
        name: &dyn Fn(u64) -> String,
        pointer: &dyn Fn(u64) -> String,
        loc: &dyn Fn(u32) -> String,
    ) -> Vec<(String, String, bool)> {
        let mut items = Vec::new();
        self.for_each_entry(|t, obj, off, payload, flushed, origin| {
            if t == tid {
                items.push((
                    format!(
                        "{}={}",
                        name(make_ptr(obj, off)),
                        payload_value(payload, pointer)
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
        name: &dyn Fn(u64) -> String,
        pointer: &dyn Fn(u64) -> String,
        loc: &dyn Fn(u32) -> String,
    ) -> String {
        let items: Vec<String> = self
            .items(tid, name, pointer, loc)
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

fn payload_value(p: &Payload, pointer: &dyn Fn(u64) -> String) -> String {
    if p.data.len() <= 8 {
        let mut buf = [0u8; 8];
        buf[..p.data.len()].copy_from_slice(&p.data);
        let v = u64::from_le_bytes(buf);
        if p.ptr_offsets.contains(&0) {
            pointer(v)
        } else {
            // Sign-extend from the entry's width for readability.
            let bits = p.data.len() as u32 * 8;
            let s = if bits == 64 {
                v as i64
            } else {
                ((v << (64 - bits)) as i64) >> (64 - bits)
            };
            s.to_string()
        }
    } else {
        format!("{} bytes", p.data.len())
    }
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
            Buffers::Lazy(b) => {
                let mut c = b.clone();
                c.for_each_object_mut(|o| *o = ptr_parts(map(make_ptr(*o, 0))).0);
                c.for_each_pointer_mut(|p| *p = map(*p));
                c.serialize_into(out);
            }
            Buffers::Reference(b) => {
                // Counts before every list, so entries cannot run into each other.
                out.extend_from_slice(&(b.threads().count() as u32).to_le_bytes());
                for t in b.threads() {
                    out.extend_from_slice(&t.to_le_bytes());
                    out.extend_from_slice(&(b.entries(t).len() as u32).to_le_bytes());
                    for e in b.entries(t) {
                        let (obj, off) =
                            ptr_parts(map(make_ptr(e.range.addr.object, e.range.addr.offset)));
                        out.extend_from_slice(&obj.to_le_bytes());
                        out.extend_from_slice(&off.to_le_bytes());
                        out.extend_from_slice(&e.range.len.to_le_bytes());
                        out.extend_from_slice(&e.origin.to_le_bytes());
                        let mut p = e.payload.clone();
                        p.for_each_pointer_mut(|x| *x = map(*x));
                        p.serialize_into(out);
                    }
                }
            }
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
