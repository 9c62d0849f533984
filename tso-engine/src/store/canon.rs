//! Canonical form of a state. Objects are renamed in the order a fixed traversal
//! reaches them (globals, then each thread's frames, then runtime data), so states that
//! differ only in allocation order or object numbering serialise identically.
//! Unreachable objects (garbage, dead stack slots nobody points to) are left out.

use crate::ir::{Program, FUNCTION_OBJECT_BASE};
use crate::memory::{read_u64, ObjId, ObjKind};
use crate::state::{State, ThreadStatus};
use crate::value::{make_ptr, ptr_parts, Val};

/// One chunk of a serialised state.
#[derive(Clone, Copy, Debug)]
pub enum Chunk<'a> {
    Bytes(&'a [u8]),
    /// An unchanged object whose chunk id the store already knows.
    Known(u32),
}

/// The serialised state: a list of chunks, their bytes in one buffer.
#[derive(Default)]
pub struct Chunks {
    buf: Vec<u8>,
    /// End offset in `buf` of each byte chunk, or a known id.
    parts: Vec<Part>,
}

#[derive(Clone, Copy)]
enum Part {
    Bytes { end: usize, object: Option<ObjId> },
    Known(u32),
}

impl Chunks {
    pub fn iter(&self) -> impl Iterator<Item = Chunk<'_>> {
        let mut start = 0;
        self.parts.iter().map(move |p| match *p {
            Part::Bytes { end, .. } => {
                let s = &self.buf[start..end];
                start = end;
                Chunk::Bytes(s)
            }
            Part::Known(id) => Chunk::Known(id),
        })
    }
    /// For each byte chunk that serialises a cacheable object: (chunk index, object).
    pub fn cacheable(&self) -> impl Iterator<Item = (usize, ObjId)> + '_ {
        self.parts.iter().enumerate().filter_map(|(i, p)| match p {
            Part::Bytes {
                object: Some(o), ..
            } => Some((i, *o)),
            _ => None,
        })
    }
    fn clear(&mut self) {
        self.buf.clear();
        self.parts.clear();
    }
    fn end_chunk(&mut self) {
        self.parts.push(Part::Bytes {
            end: self.buf.len(),
            object: None,
        });
    }
    fn end_object_chunk(&mut self, object: ObjId) {
        self.parts.push(Part::Bytes {
            end: self.buf.len(),
            object: Some(object),
        });
    }
}

#[derive(Default)]
pub struct Canonicalizer {
    /// old id → new id (0 = not reached yet).
    map: Vec<u32>,
    order: Vec<ObjId>,
    pub chunks: Chunks,
    /// Serialise every register, not just the live ones (for states taken in the middle
    /// of a transition, where liveness is not recorded).
    pub all_registers: bool,
    /// Generation of the store whose cached object chunk ids may be used (0: none).
    pub cache_generation: u32,
    /// Scratch space reused across runs (root pointers, a frame's allocas).
    scratch: Vec<u64>,
    scratch_ids: Vec<u32>,
}

const INVALID: u32 = u32::MAX;

impl Canonicalizer {
    pub fn new() -> Canonicalizer {
        Canonicalizer::default()
    }

    /// Serialise `st` canonically into `self.chunks`.
    pub fn run(&mut self, program: &Program, st: &State, include_output: bool) {
        self.map.clear();
        self.map.resize(st.memory.len(), 0);
        self.order.clear();
        let globals = st.memory.globals;
        for g in 1..=globals {
            self.map[g as usize] = g;
            self.order.push(g);
        }
        // Roots, in a fixed order.
        for t in &st.threads {
            for f in &t.frames {
                let mut roots = std::mem::take(&mut self.scratch);
                roots.clear();
                for_each_reg(program, f, self.all_registers, |v| {
                    v.for_each_pointer(&mut |p| roots.push(p))
                });
                for &p in &roots {
                    self.reach(st, p);
                }
                self.scratch = roots;
                for &a in f.allocas.iter().chain(f.varargs.iter()) {
                    self.reach_obj(st, a);
                }
            }
            for &(_, o) in &t.tls {
                self.reach_obj(st, o);
            }
            for (_, v) in &t.specific {
                v.for_each_pointer(&mut |p| self.reach(st, p));
            }
            if let ThreadStatus::Finished(v) = &t.status {
                v.for_each_pointer(&mut |p| self.reach(st, p));
            }
            for v in t.callback_result.iter().chain(t.pending_exit.iter()) {
                v.for_each_pointer(&mut |p| self.reach(st, p));
            }
        }
        if let Some(ext) = &st.ext {
            ext.for_each_pointer(&mut |p| self.reach(st, p));
        }
        // Breadth-first through memory.
        let mut i = 0;
        while i < self.order.len() {
            let id = self.order[i];
            i += 1;
            if let Some(o) = st.memory.get(id) {
                for &off in &o.ptrs {
                    let p = read_u64(&o.data, off);
                    self.reach(st, p);
                }
            }
        }
        self.serialize(program, st, include_output);
    }

    /// After `run`: drop dead objects (freed heap blocks, returned stack slots) that
    /// nothing points to any more. They are not part of the canonical state, and keeping
    /// them would make memory grow along every path that calls functions.
    pub fn collect_garbage(&self, st: &mut State) {
        let dead: Vec<ObjId> = st
            .memory
            .ids()
            .filter(|&id| {
                id > st.memory.globals && self.map.get(id as usize).is_none_or(|&m| m == 0)
            })
            .filter(|&id| st.memory.get(id).is_some_and(|o| o.freed))
            .collect();
        for id in dead {
            st.memory.remove(id);
        }
    }

    fn reach(&mut self, st: &State, p: u64) {
        let (obj, _) = ptr_parts(p);
        self.reach_obj(st, obj);
    }

    fn reach_obj(&mut self, st: &State, obj: ObjId) {
        if obj == 0
            || obj >= FUNCTION_OBJECT_BASE
            || (obj as usize) >= self.map.len()
            || self.map[obj as usize] != 0
        {
            return;
        }
        if st.memory.get(obj).is_none() {
            self.map[obj as usize] = INVALID;
            return;
        }
        self.order.push(obj);
        self.map[obj as usize] = self.order.len() as u32;
    }

    #[inline]
    fn map_ptr(map: &[u32], p: u64) -> u64 {
        let (obj, off) = ptr_parts(p);
        if obj == 0 || obj >= FUNCTION_OBJECT_BASE {
            return p;
        }
        match map.get(obj as usize) {
            Some(&n) if n != 0 => make_ptr(n, off),
            _ => make_ptr(INVALID, off),
        }
    }

    fn serialize(&mut self, program: &Program, st: &State, include_output: bool) {
        let map = std::mem::take(&mut self.map);
        let out = &mut self.chunks;
        out.clear();
        // Process-wide data.
        let b = &mut out.buf;
        b.extend_from_slice(&st.exit_code.map_or(u32::MAX, |c| c as u32).to_le_bytes());
        b.extend_from_slice(&st.next_key.to_le_bytes());
        b.extend_from_slice(&st.atomic_owner.map_or(u32::MAX, |t| t).to_le_bytes());
        for a in &st.atexit {
            b.extend_from_slice(&a.to_le_bytes());
        }
        if include_output {
            b.extend_from_slice(&st.output);
        }
        out.end_chunk();
        for t in &st.threads {
            let b = &mut out.buf;
            match &t.status {
                ThreadStatus::Running => b.push(0),
                ThreadStatus::Finished(v) => {
                    b.push(1);
                    write_val(b, &map, v);
                }
            }
            b.extend_from_slice(&t.phase.to_le_bytes());
            b.push(t.detached as u8 | (t.joined as u8) << 1);
            if let Some(v) = &t.callback_result {
                b.push(1);
                write_val(b, &map, v);
            }
            if let Some(v) = &t.pending_exit {
                b.push(2);
                write_val(b, &map, v);
            }
            for f in &t.frames {
                b.extend_from_slice(&f.func.to_le_bytes());
                b.extend_from_slice(&f.block.to_le_bytes());
                b.extend_from_slice(&f.ip.to_le_bytes());
                b.push(f.ret as u8);
                for_each_reg(program, f, self.all_registers, |v| write_val(b, &map, v));
                b.push(0xA1);
                let allocas = &mut self.scratch_ids;
                allocas.clear();
                allocas.extend(
                    f.allocas
                        .iter()
                        .chain(f.varargs.iter())
                        .map(|&a| map.get(a as usize).copied().unwrap_or(INVALID))
                        .filter(|&n| n != 0),
                );
                allocas.sort_unstable();
                for a in allocas.iter() {
                    b.extend_from_slice(&a.to_le_bytes());
                }
                b.push(0xF0);
            }
            for (g, o) in &t.tls {
                b.extend_from_slice(&g.to_le_bytes());
                b.extend_from_slice(
                    &map.get(*o as usize)
                        .copied()
                        .unwrap_or(INVALID)
                        .to_le_bytes(),
                );
            }
            for (k, v) in &t.specific {
                b.extend_from_slice(&k.to_le_bytes());
                write_val(b, &map, v);
            }
            out.end_chunk();
        }
        for &id in &self.order {
            let Some(o) = st.memory.get(id) else { continue };
            if o.constant {
                continue;
            }
            let cacheable = o.ptrs.is_empty() && self.cache_generation != 0;
            if cacheable {
                let c = o.chunk_cache.get();
                if c >> 32 == self.cache_generation as u64 {
                    out.parts.push(Part::Known(c as u32));
                    continue;
                }
            }
            let b = &mut out.buf;
            let kind = match o.kind {
                ObjKind::Global(_) => 0u8,
                ObjKind::ThreadLocal(_) => 1,
                ObjKind::Stack => 2,
                ObjKind::Heap => 3,
                ObjKind::Internal => 4,
            };
            b.push(kind | (o.freed as u8) << 3 | (o.shared as u8) << 4 | o.alloc_family << 5);
            b.extend_from_slice(&(o.data.len() as u32).to_le_bytes());
            let start = b.len();
            b.extend_from_slice(&o.data);
            for &off in &o.ptrs {
                let p = read_u64(&o.data, off);
                let q = Self::map_ptr(&map, p);
                let at = start + off as usize;
                b[at..at + 8].copy_from_slice(&q.to_le_bytes());
            }
            for &off in &o.ptrs {
                b.extend_from_slice(&off.to_le_bytes());
            }
            if cacheable {
                out.end_object_chunk(id);
            } else {
                out.end_chunk();
            }
        }
        if let Some(ext) = &st.ext {
            let mut f = |p: u64| Self::map_ptr(&map, p);
            ext.serialize(&mut f, &mut out.buf);
            out.end_chunk();
        }
        self.map = map;
    }
}

/// The registers of a frame that belong to the state: the live ones where the frame
/// stopped, or all of them.
#[inline]
fn for_each_reg(
    program: &Program,
    f: &crate::state::Frame,
    all: bool,
    mut visit: impl FnMut(&Val),
) {
    if all {
        f.regs.iter().for_each(visit);
        return;
    }
    if let Some(body) = &program.functions[f.func as usize].body {
        if (f.block as usize) < body.blocks.len()
            && (f.ip as usize) < body.blocks[f.block as usize].insts.len()
        {
            for &r in body.live.live_at(f.block, f.ip) {
                if let Some(v) = f.regs.get(r as usize) {
                    visit(v);
                }
            }
        }
    }
}

fn write_val(b: &mut Vec<u8>, map: &[u32], v: &Val) {
    match v {
        Val::Int(x) => {
            if *x <= u64::MAX as u128 {
                b.push(1);
                b.extend_from_slice(&(*x as u64).to_le_bytes());
            } else {
                b.push(2);
                b.extend_from_slice(&x.to_le_bytes());
            }
        }
        Val::Ptr(p) => {
            b.push(3);
            b.extend_from_slice(&Canonicalizer::map_ptr(map, *p).to_le_bytes());
        }
        Val::F32(x) => {
            b.push(4);
            b.extend_from_slice(&x.to_le_bytes());
        }
        Val::F64(x) => {
            b.push(5);
            b.extend_from_slice(&x.to_le_bytes());
        }
        Val::Agg(l) => {
            b.push(6);
            b.extend_from_slice(&(l.len() as u32).to_le_bytes());
            for x in l.iter() {
                write_val(b, map, x);
            }
        }
    }
}
