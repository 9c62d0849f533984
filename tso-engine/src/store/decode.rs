//! Rebuilding a state from its canonical chunks (the inverse of `canon.rs`), so a
//! search can hold state ids and rebuild a state only when it expands it.
//!
//! The rebuilt state is the canonical one: object `k` of the serialisation is object
//! id `k`, so pointers need no renaming, and serialising it again gives the same
//! chunks. What the canonical form leaves out is not state, and comes back as follows:
//! dead registers are 0, origins of undefined bits and the names of non-global objects
//! (`Object::site`, `Object::var`) are unknown, and constant globals and the globals'
//! names are taken from `base` (the initial state). The output is empty unless it is
//! part of the state. Extension data is rebuilt by `ExtState::decode` of a value of its
//! kind (None for a kind that cannot rebuild it), race data by `RaceState::decode`
//! (an equivalent race state: see there).

use crate::bytes::Reader;
use crate::definedness::Undef;
use crate::ir::Program;
use crate::memory::{Memory, ObjKind, Object};
use crate::race::RaceState;
use crate::state::{ExitValue, ExtState, Frame, ReturnTo, State, Thread, ThreadStatus};
use crate::value::Val;
use std::sync::Arc;

/// `canon::write_exit_value`; the origin of undefined bits is not state.
fn exit_value(r: &mut Reader<'_>) -> Option<ExitValue> {
    let value = r.val()?;
    let undef = r.opt_val()?.map(|shadow| Undef {
        shadow,
        origin: None,
    });
    Some(ExitValue { value, undef })
}

/// Threads and objects rebuilt lately, by chunk id, kept by a worker so that states
/// rebuilt one after the other share the parts they have in common (as one `Arc`, which
/// also lets `canon.rs` reuse their chunk ids when the state is serialised again). A
/// rebuilt thread or object is a function of its chunk's bytes (and, for a global, of
/// its index; for a thread, of `all_registers`), and a chunk id names one byte string in
/// its store, so sharing the result is exact; `Arc::make_mut` copies before a change.
#[derive(Default)]
pub struct Rebuilt {
    /// The store generation the ids below belong to.
    generation: u64,
    /// ((global index or 0) << 32 | chunk id, object), direct-mapped.
    objects: Vec<(u64, Option<Arc<Object>>)>,
    /// ((all_registers << 32) | chunk id, thread), direct-mapped.
    threads: Vec<(u64, Option<Arc<Thread>>)>,
    /// The objects of the state being rebuilt, by id (`Memory::from_slots`).
    slots: Vec<Option<Arc<Object>>>,
}

const REBUILT_SLOTS: usize = 1 << 12;

impl Rebuilt {
    fn prepare(&mut self, generation: u64) {
        if self.generation != generation || self.objects.is_empty() {
            self.generation = generation;
            self.objects = vec![(u64::MAX, None); REBUILT_SLOTS];
            self.threads = vec![(u64::MAX, None); REBUILT_SLOTS];
        }
    }

    fn slot(key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 52) as usize & (REBUILT_SLOTS - 1)
    }

    /// The object cached under `key`, or `make()` cached under it.
    fn object(&mut self, key: u64, make: impl FnOnce() -> Option<Object>) -> Option<Arc<Object>> {
        cached(&mut self.objects[Self::slot(key)], key, make)
    }

    fn thread(&mut self, key: u64, make: impl FnOnce() -> Option<Thread>) -> Option<Arc<Thread>> {
        cached(&mut self.threads[Self::slot(key)], key, make)
    }
}

/// The value `slot` holds for `key`, or `make()`, then held for it.
fn cached<T>(
    slot: &mut (u64, Option<Arc<T>>),
    key: u64,
    make: impl FnOnce() -> Option<T>,
) -> Option<Arc<T>> {
    if let (k, Some(v)) = slot {
        if *k == key {
            return Some(v.clone());
        }
    }
    let v = Arc::new(make()?);
    *slot = (key, Some(v.clone()));
    Some(v)
}

/// The chunks of one stored state: their ids in the store, and their bytes on demand.
pub struct StoredChunks<'a> {
    pub ids: &'a [u32],
    /// `(store generation << 32)`, to seed the rebuilt objects' chunk caches (0: none).
    pub generation: u64,
}

/// The bytes of a state's chunks, by position. A chunk whose thread or object a worker
/// has rebuilt lately (`Rebuilt`) is not read at all: reading takes a lock of the
/// shared store.
pub trait ChunkBytes {
    /// The bytes of chunk `i`, valid until the next call; None past the last chunk.
    fn get(&mut self, i: usize) -> Option<&[u8]>;
}

/// Rebuild the state serialised as `chunks` (see the module documentation).
pub fn decode(
    program: &Program,
    base: &State,
    ext: Option<&dyn ExtState>,
    chunks: &StoredChunks<'_>,
    source: &mut dyn ChunkBytes,
    all_registers: bool,
    rebuilt: &mut Rebuilt,
) -> Option<State> {
    // Without a store (no ids to key by), nothing is shared.
    let shared = chunks.generation != 0;
    if shared {
        rebuilt.prepare(chunks.generation);
    }
    let mut st = State::new(Memory::new());
    let (threads, objects, flags) = {
        let mut r = Reader::new(source.get(0)?);
        let threads = r.len()?;
        let objects = r.len()?;
        let flags = r.u8()?;
        if flags & 4 != 0 {
            st.exit_code = Some(r.u32()? as i32);
        }
        st.thread_ids_in_memory = flags & 32 != 0;
        st.next_key = r.u32()?;
        if flags & 8 != 0 {
            st.atomic_owner = Some(r.u32()?);
        }
        let atexit = r.len()?;
        for _ in 0..atexit {
            st.atexit.push(r.u64()?);
        }
        if flags & 16 != 0 {
            let n = r.len()?;
            st.output = Arc::new(r.take(n)?.to_vec());
        }
        if !r.done() {
            return None;
        }
        (threads, objects, flags)
    };
    // The position of the next chunk.
    let mut next = 1..chunks.ids.len();
    let id = |i: usize| chunks.ids[i] as u64;
    for _ in 0..threads {
        let i = next.next()?;
        let mut make = || thread(program, source.get(i)?, all_registers);
        st.threads.push(if shared {
            rebuilt.thread((all_registers as u64) << 32 | id(i), make)?
        } else {
            Arc::new(make()?)
        });
    }
    // Objects: the globals keep their ids (constant ones are not serialised: taken
    // from `base`), then the others in canonical order; `slots[id]` is object `id`.
    let globals = base.memory.globals;
    let mut slots = std::mem::take(&mut rebuilt.slots);
    slots.clear();
    slots.push(None);
    let mut left = objects;
    for g in 1..=globals {
        let Some(b) = base.memory.get_arc(g) else {
            slots.push(None);
            continue;
        };
        if b.constant {
            slots.push(Some(b.clone()));
            continue;
        }
        let i = next.next()?;
        left = left.checked_sub(1)?;
        let mut make = || {
            let mut o = object(source.get(i)?, Some(b))?;
            o.site = b.site;
            o.var = b.var;
            seed_cache(&o, chunks, i);
            Some(o)
        };
        let o = if shared {
            rebuilt.object((g as u64) << 32 | id(i), make)?
        } else {
            Arc::new(make()?)
        };
        slots.push(Some(o));
    }
    for _ in 0..left {
        let i = next.next()?;
        let mut make = || {
            let o = object(source.get(i)?, None)?;
            seed_cache(&o, chunks, i);
            Some(o)
        };
        let o = if shared {
            rebuilt.object(id(i), make)?
        } else {
            Arc::new(make()?)
        };
        slots.push(Some(o));
    }
    st.memory = Memory::from_slots(&mut slots, globals);
    rebuilt.slots = slots;
    if flags & 1 != 0 {
        let i = next.next()?;
        st.ext = Some(ext?.decode(source.get(i)?, &mut |p| p)?);
    }
    if flags & 2 != 0 {
        let rest: Vec<Vec<u8>> = next
            .by_ref()
            .map(|i| source.get(i).map(<[u8]>::to_vec))
            .collect::<Option<_>>()?;
        let rest: Vec<&[u8]> = rest.iter().map(Vec::as_slice).collect();
        st.races = Some(Arc::new(RaceState::decode(&rest)?));
    }
    if next.next().is_some() {
        return None;
    }
    Some(st)
}

/// A pointer-free object's chunk id is what the store would find for it again.
fn seed_cache(o: &Object, chunks: &StoredChunks<'_>, i: usize) {
    if o.ptrs.is_empty() && chunks.generation != 0 {
        if let Some(&id) = chunks.ids.get(i) {
            o.chunk_cache.set(chunks.generation | id as u64);
        }
    }
}

fn thread(program: &Program, bytes: &[u8], all_registers: bool) -> Option<Thread> {
    let mut r = Reader::new(bytes);
    let status = match r.u8()? {
        0 => ThreadStatus::Running,
        1 => ThreadStatus::Finished(exit_value(&mut r)?),
        2 => ThreadStatus::Stuck,
        _ => return None,
    };
    let phase = r.u32()?;
    let flags = r.u8()?;
    let callback_result = r.opt_val()?;
    let pending_exit = match r.u8()? {
        0 => None,
        1 => Some(exit_value(&mut r)?),
        _ => return None,
    };
    let n = r.len()?;
    let mut frames = Vec::with_capacity(n.min(bytes.len()));
    for _ in 0..n {
        frames.push(frame(program, &mut r, all_registers)?);
    }
    let n = r.len()?;
    let mut tls = Vec::with_capacity(n.min(bytes.len()));
    for _ in 0..n {
        tls.push((r.u32()?, r.u32()?));
    }
    let n = r.len()?;
    let mut specific = Vec::with_capacity(n.min(bytes.len()));
    for _ in 0..n {
        specific.push((r.u32()?, r.val()?));
    }
    let handle = r.u32()?;
    if !r.done() {
        return None;
    }
    Some(Thread {
        frames,
        status,
        phase,
        callback_result,
        detached: flags & 1 != 0,
        joined: flags & 2 != 0,
        tls,
        specific,
        pending_exit,
        handle,
        settled_frames: 0,
    })
}

fn frame(program: &Program, r: &mut Reader<'_>, all_registers: bool) -> Option<Frame> {
    let func = r.u32()?;
    let block = r.u32()?;
    let ip = r.u32()?;
    let ret = match r.u8()? {
        0 => ReturnTo::Caller,
        1 => ReturnTo::CallerEndsAtomic,
        2 => ReturnTo::Native { phase: r.u32()? },
        3 => ReturnTo::Nothing,
        _ => return None,
    };
    let function = program.functions.get(func as usize)?;
    let count = r.len()?;
    let mut regs = vec![Val::Int(0); (function.num_regs as usize).max(count)];
    if all_registers {
        regs.truncate(count);
        for v in regs.iter_mut() {
            *v = r.val()?;
        }
    } else {
        // The live registers where the frame stopped, in `live_at` order.
        let live = function
            .body
            .as_ref()
            .filter(|b| {
                (block as usize) < b.blocks.len()
                    && (ip as usize) < b.blocks[block as usize].insts.len()
            })
            .map_or(&[][..], |b| b.live.live_at(block, ip));
        let held = regs.len();
        let mut kept = live.iter().filter(|&&reg| (reg as usize) < held);
        for _ in 0..count {
            let &reg = kept.next()?;
            regs[reg as usize] = r.val()?;
        }
    }
    let n = r.len()?;
    let mut undef = Vec::with_capacity(n.min(64));
    for _ in 0..n {
        let reg = r.u32()?;
        undef.push((
            reg,
            Undef {
                shadow: r.val()?,
                origin: None,
            },
        ));
    }
    let n = r.len()?;
    let mut allocas = Vec::with_capacity(n.min(64));
    for _ in 0..n {
        allocas.push(r.u32()?);
    }
    let varargs = match r.u8()? {
        0 => None,
        1 => Some(r.u32()?),
        _ => return None,
    };
    Some(Frame {
        func,
        block,
        ip,
        regs: Arc::new(regs),
        undef,
        allocas,
        varargs,
        ret,
    })
}

/// One object; `global` is the base state's object when it is a global.
fn object(bytes: &[u8], global: Option<&Arc<Object>>) -> Option<Object> {
    let mut r = Reader::new(bytes);
    let flags = r.u8()?;
    let kind = match (flags & 7, global) {
        (0, Some(g)) => g.kind,
        (1, _) => ObjKind::ThreadLocal(r.u32()?),
        (2, _) => ObjKind::Stack,
        (3, _) => ObjKind::Heap,
        (4, _) => ObjKind::Internal,
        _ => return None,
    };
    let alloc_family = r.u8()?;
    let len = r.len()?;
    let mut o = Object::new(0, kind);
    o.data = r.take(len)?.to_vec();
    o.freed = flags & 8 != 0;
    o.shared = flags & 16 != 0;
    o.frame_private = flags & 32 != 0;
    o.alloc_family = alloc_family;
    let n = r.len()?;
    o.ptrs = (0..n).map(|_| r.u32()).collect::<Option<_>>()?;
    match r.u8()? {
        0 => {}
        1 => {
            // Two bits per byte (defined, wholly undefined, partly), then the partial
            // masks (`canon::write_undef_mask`).
            let classes = r.take(len.div_ceil(4))?;
            let mut undef = vec![0u8; len];
            let mut partial = Vec::new();
            for (i, m) in undef.iter_mut().enumerate() {
                match (classes[i / 4] >> (2 * (i % 4))) & 3 {
                    0 => {}
                    1 => *m = 0xff,
                    2 => partial.push(i),
                    _ => return None,
                }
            }
            for i in partial {
                undef[i] = r.u8()?;
            }
            o.undef = undef;
        }
        _ => return None,
    }
    if !r.done() {
        return None;
    }
    Some(o)
}
