//! One memory object: a global, a stack slot or a heap block.

/// What an object is; part of the state (a freed heap block differs from a live one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ObjKind {
    Global(u32),
    /// A thread's copy of a `_Thread_local` global.
    ThreadLocal(u32),
    /// An alloca; `site` names the instruction's location for traces.
    Stack,
    Heap,
    /// Storage the engine allocates for its own purposes (varargs areas, thread results).
    Internal,
}

#[derive(Debug)]
pub struct Object {
    pub data: Vec<u8>,
    /// Sorted offsets at which an 8-byte pointer with provenance starts.
    pub ptrs: Vec<u32>,
    /// Per byte, the bits never written (1 = undefined), as long as the object holds
    /// any; empty once every bit is defined, so defined objects cost nothing.
    pub(crate) undef: Vec<u8>,
    pub(crate) kind: ObjKind,
    /// Reachable by more than one thread (monotone: never reset).
    pub shared: bool,
    /// Freed heap block or dead stack slot, kept so dangling accesses are reported.
    pub freed: bool,
    /// Never written after initialisation (constant globals); not part of the state.
    pub(crate) constant: bool,
    /// Location id of the allocation site, for human-readable names.
    pub site: Option<u32>,
    /// For names only: the source variable a stack slot holds (index into
    /// `DebugInfo::locals`), or, while a trace is replayed, the debug type of the
    /// record a heap block holds once a typed pointer to it was stored.
    pub var: Option<u32>,
    /// Heap blocks from `new` must be released with `delete`, etc.
    pub alloc_family: u8,
    /// A stack slot whose address never leaves its frame's registers
    /// (`Inst::Alloca::escapes` is false): it can never be shared, so race detection
    /// keeps nothing for it. Follows from the allocating instruction, so not part of
    /// the state.
    pub(crate) frame_private: bool,
    /// The state store's id for this object's serialised form, valid while the object
    /// is unchanged and holds no pointers: `(store generation << 32) | chunk id`, 0 if
    /// unknown. Reset by every mutable access (see `Memory::get_mut`).
    pub(crate) chunk_cache: ChunkCache,
    /// Where undefined bytes written into this object came from, when a store or a
    /// copy brought them from elsewhere: `(offset, length, origin)`, newest last, at
    /// most `UNDEF_FROM_KEPT`. For messages only, like `site`: not part of the state;
    /// a replay recomputes it along the path.
    pub(crate) undef_from: Vec<(u32, u32, crate::definedness::Origin)>,
}

/// How many `Object::undef_from` ranges an object keeps (the oldest goes first).
const UNDEF_FROM_KEPT: usize = 8;

/// An object's cached chunk id; shared by the workers that hold states with this object.
#[derive(Debug, Default)]
pub(crate) struct ChunkCache(std::sync::atomic::AtomicU64);

impl ChunkCache {
    #[inline]
    pub(crate) fn get(&self) -> u64 {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
    #[inline]
    pub(crate) fn set(&self, v: u64) {
        self.0.store(v, std::sync::atomic::Ordering::Relaxed)
    }
}

impl Clone for ChunkCache {
    fn clone(&self) -> Self {
        ChunkCache(std::sync::atomic::AtomicU64::new(self.get()))
    }
}

/// A copy of `v` that calls into the allocator only when there is something to copy.
fn copy<T: Copy>(v: &[T]) -> Vec<T> {
    if v.is_empty() {
        Vec::new()
    } else {
        v.to_vec()
    }
}

impl Clone for Object {
    /// Objects are copied on a state's first write to them. Most hold no pointers, no
    /// undefined bits and no origins; an empty vector is not copied (the derived clone
    /// calls into the allocator's copy for each).
    fn clone(&self) -> Self {
        Object {
            data: self.data.clone(),
            ptrs: copy(&self.ptrs),
            undef: copy(&self.undef),
            kind: self.kind,
            shared: self.shared,
            freed: self.freed,
            constant: self.constant,
            site: self.site,
            var: self.var,
            alloc_family: self.alloc_family,
            frame_private: self.frame_private,
            chunk_cache: self.chunk_cache.clone(),
            undef_from: copy(&self.undef_from),
        }
    }
}

impl Object {
    /// This object dead (see `Memory::kill`): what it was, without its bytes. Built
    /// directly, so an object other states still hold is not copied only to be emptied.
    pub(crate) fn tombstone(&self) -> Object {
        Object {
            data: Vec::new(),
            ptrs: Vec::new(),
            undef: Vec::new(),
            kind: self.kind,
            shared: self.shared,
            freed: true,
            constant: self.constant,
            site: self.site,
            var: self.var,
            alloc_family: self.alloc_family,
            frame_private: self.frame_private,
            chunk_cache: ChunkCache::default(),
            undef_from: copy(&self.undef_from),
        }
    }

    pub(crate) fn new(size: usize, kind: ObjKind) -> Object {
        Object {
            data: vec![0; size],
            ptrs: Vec::new(),
            undef: Vec::new(),
            kind,
            shared: false,
            freed: false,
            constant: false,
            site: None,
            var: None,
            alloc_family: 0,
            frame_private: false,
            chunk_cache: ChunkCache::default(),
            undef_from: Vec::new(),
        }
    }

    #[inline]
    pub(crate) fn size(&self) -> u64 {
        self.data.len() as u64
    }

    /// `[off, off+len)` was written; its undefined bits, if any, came from `origin`
    /// (None: they are defined, or came from nowhere known). Ranges the write covers
    /// are forgotten.
    pub(crate) fn note_undef_from(
        &mut self,
        off: u32,
        len: u32,
        origin: Option<crate::definedness::Origin>,
    ) {
        if self.undef_from.is_empty() && origin.is_none() {
            return;
        }
        let end = off + len;
        self.undef_from
            .retain(|&(o, l, _)| !(off <= o && o + l <= end));
        if let Some(origin) = origin {
            if self.undef_from.len() == UNDEF_FROM_KEPT {
                self.undef_from.remove(0);
            }
            self.undef_from.push((off, len, origin));
        }
    }

    /// A new object whose bytes were never written (stack slots, `malloc`).
    pub(crate) fn new_undefined(size: usize, kind: ObjKind) -> Object {
        let mut o = Object::new(size, kind);
        o.undef = vec![0xff; size];
        o
    }

    /// The undefined bits of `[off, off+len)`, or None when all of them are defined.
    #[inline]
    pub(crate) fn undef_in(&self, off: u32, len: u32) -> Option<&[u8]> {
        if self.undef.is_empty() {
            return None;
        }
        let r = &self.undef[off as usize..off as usize + len as usize];
        r.iter().any(|&b| b != 0).then_some(r)
    }

    /// Record the definedness of `[off, off+len)` after a write: `mask` holds its
    /// undefined bits (empty: all defined). Drops the mask once nothing is undefined.
    pub(crate) fn set_undef(&mut self, off: u32, len: u32, mask: &[u8]) {
        let (start, end) = (off as usize, off as usize + len as usize);
        if mask.iter().all(|&b| b == 0) {
            if self.undef.is_empty() || self.undef[start..end].iter().all(|&b| b == 0) {
                return;
            }
            self.undef[start..end].fill(0);
            if self.undef.iter().all(|&b| b == 0) {
                self.undef = Vec::new();
            }
            return;
        }
        if self.undef.is_empty() {
            self.undef = vec![0; self.data.len()];
        }
        self.undef[start..end].copy_from_slice(mask);
    }

    /// Forget provenance of pointers overlapping `[off, off+len)`.
    pub(crate) fn clear_ptrs(&mut self, off: u32, len: u32) {
        if self.ptrs.is_empty() {
            return;
        }
        let end = off as u64 + len as u64;
        self.ptrs
            .retain(|&p| !((p as u64) < end && p as u64 + 8 > off as u64));
    }

    pub(crate) fn add_ptr(&mut self, off: u32) {
        match self.ptrs.binary_search(&off) {
            Ok(_) => {}
            Err(i) => self.ptrs.insert(i, off),
        }
    }

    #[inline]
    pub(crate) fn has_ptr_at(&self, off: u32) -> bool {
        !self.ptrs.is_empty() && self.ptrs.binary_search(&off).is_ok()
    }

    /// Pointer starts inside `[off, off+len)`, relative to `off`.
    pub(crate) fn ptrs_in(&self, off: u32, len: u32) -> impl Iterator<Item = u32> + '_ {
        let end = off as u64 + len as u64;
        self.ptrs
            .iter()
            .copied()
            .filter(move |&p| p >= off && (p as u64) + 8 <= end)
            .map(move |p| p - off)
    }
}
