//! Object memory with pointer provenance. Objects and the pages of the object table are
//! copy-on-write, so cloning a state copies one pointer per page.

mod fragment;
mod layout;
mod object;

pub use fragment::Fragment;
pub(crate) use layout::{decode, encode};
pub(crate) use object::ObjKind;
pub use object::Object;

use crate::error::{ErrorKind, Failure};
use crate::ir::FUNCTION_OBJECT_BASE;
use crate::value::ptr_parts;
use std::sync::Arc;

pub(crate) type ObjId = u32;

/// Largest single object; larger requests fail like an exhausted allocator would.
pub(crate) const MAX_OBJECT_SIZE: u64 = 1 << 30;

/// Object slots per page of the object table.
const PAGE_BITS: u32 = 3;
const PAGE: usize = 1 << PAGE_BITS;

/// One page of the object table, shared between states until one of them changes a
/// slot in it.
type Page = [Option<Arc<Object>>; PAGE];

/// The object table is paged and each page copy-on-write: cloning a state (once per
/// transition) copies one pointer per page instead of one per object, and a transition
/// copies only the pages whose objects it changes, allocates or drops.
#[derive(Clone, Debug, Default)]
pub struct Memory {
    /// Slot `id % PAGE` of page `id / PAGE` holds object `id`; id 0 is the null object
    /// and never used. Slots at `len` and beyond are empty.
    pages: Vec<Arc<Page>>,
    /// Number of ids in use (one past the highest slot ever filled).
    len: usize,
    /// Lowest id that might be free.
    free_hint: usize,
    /// Number of globals; ids 1..=globals are fixed.
    pub(crate) globals: u32,
}

impl Memory {
    pub fn new() -> Memory {
        Memory {
            pages: Vec::new(),
            len: 1,
            free_hint: 1,
            globals: 0,
        }
    }

    /// A memory holding `slots[id]` as object `id` (slot 0, the null object, stays
    /// empty), built a page at a time (rebuilding a stored state, `store::decode`): the
    /// memory `new` gives with each object then put in its slot. `slots` is left empty.
    pub(crate) fn from_slots(slots: &mut Vec<Option<Arc<Object>>>, globals: u32) -> Memory {
        let len = slots.iter().rposition(Option::is_some).map_or(1, |i| i + 1);
        slots.truncate(len);
        let pages = if len > 1 { len.div_ceil(PAGE) } else { 0 };
        let mut objects = slots.drain(..);
        let pages = (0..pages)
            .map(|_| Arc::new(std::array::from_fn(|_| objects.next().flatten())))
            .collect();
        Memory {
            pages,
            len,
            free_hint: 1,
            globals,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn slot(&self, id: usize) -> Option<&Option<Arc<Object>>> {
        self.pages.get(id >> PAGE_BITS).map(|p| &p[id & (PAGE - 1)])
    }

    /// Slot `id` to change, its page made this state's own; the table grows to hold it.
    fn slot_mut(&mut self, id: usize) -> &mut Option<Arc<Object>> {
        let page = id >> PAGE_BITS;
        if self.pages.len() <= page {
            self.pages
                .resize_with(page + 1, || Arc::new(Default::default()));
        }
        self.len = self.len.max(id + 1);
        &mut Arc::make_mut(&mut self.pages[page])[id & (PAGE - 1)]
    }

    pub(crate) fn allocate(&mut self, obj: Object) -> ObjId {
        let mut i = self.free_hint.max(1);
        while i < self.len && self.slot(i).is_some_and(Option::is_some) {
            i += 1;
        }
        *self.slot_mut(i) = Some(Arc::new(obj));
        self.free_hint = i + 1;
        i as ObjId
    }

    /// The object dies (freed heap block, returned stack slot): it stays as a tombstone
    /// so dangling accesses are reported, without its bytes.
    pub(crate) fn kill(&mut self, id: ObjId) {
        if crate::hooks::observed() && self.get(id).is_some_and(|o| o.shared) {
            crate::hooks::report(|h| h.object(id, true));
        }
        if !self.slot(id as usize).is_some_and(Option::is_some) {
            return;
        }
        let Some(slot) = self.slot_mut(id as usize).as_mut() else {
            return;
        };
        match Arc::get_mut(slot) {
            Some(o) => {
                o.freed = true;
                o.data = Vec::new();
                o.ptrs.clear();
                o.undef = Vec::new();
                o.chunk_cache.set(0);
            }
            // Held by other states too: a fresh tombstone, not a copy of the bytes.
            None => *slot = Arc::new(slot.tombstone()),
        }
    }

    /// The shared object at `id` (to place it unchanged in a rebuilt state).
    #[inline]
    pub(crate) fn get_arc(&self, id: ObjId) -> Option<&Arc<Object>> {
        self.slot(id as usize).and_then(|o| o.as_ref())
    }

    /// Drop an object entirely (used when canonical GC finds it unreachable).
    pub(crate) fn remove(&mut self, id: ObjId) {
        if self.slot(id as usize).is_some_and(Option::is_some) {
            *self.slot_mut(id as usize) = None;
            self.free_hint = self.free_hint.min(id as usize);
        }
    }

    #[inline]
    pub fn get(&self, id: ObjId) -> Option<&Object> {
        self.slot(id as usize).and_then(|o| o.as_deref())
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, id: ObjId) -> Option<&mut Object> {
        if !self.slot(id as usize).is_some_and(Option::is_some) {
            return None;
        }
        let o = Arc::make_mut(self.slot_mut(id as usize).as_mut()?);
        // The caller may change it: its cached serialisation is no longer valid.
        o.chunk_cache.set(0);
        Some(o)
    }

    /// Each object of `before` (an earlier version of this memory) whose slot here may
    /// hold another object, in id order, with what the slot holds now: the objects of
    /// the pages not shared with `before` (a shared page holds the same objects).
    pub(crate) fn changed_since<'a>(
        &'a self,
        before: &'a Memory,
    ) -> impl Iterator<Item = (ObjId, &'a Arc<Object>, Option<&'a Arc<Object>>)> + 'a {
        before
            .pages
            .iter()
            .enumerate()
            .filter(|&(p, old)| !self.pages.get(p).is_some_and(|new| Arc::ptr_eq(old, new)))
            .flat_map(move |(p, old)| {
                old.iter().enumerate().filter_map(move |(i, o)| {
                    let id = p << PAGE_BITS | i;
                    Some((id as ObjId, o.as_ref()?, self.get_arc(id as ObjId)))
                })
            })
    }

    /// Each slot whose object is not the one `before` (another version of this memory)
    /// holds there, in id order: (id, before's object, this one's). A slot whose page is
    /// shared, or that holds the same `Arc`, holds the same contents and is skipped.
    pub(crate) fn differing<'a>(
        &'a self,
        before: &'a Memory,
    ) -> impl Iterator<Item = (ObjId, Option<&'a Arc<Object>>, Option<&'a Arc<Object>>)> + 'a {
        let pages = self.pages.len().max(before.pages.len());
        (0..pages)
            .filter(move |&p| match (self.pages.get(p), before.pages.get(p)) {
                (Some(a), Some(b)) => !Arc::ptr_eq(a, b),
                _ => true,
            })
            .flat_map(move |p| {
                (0..PAGE).filter_map(move |i| {
                    let old = before.pages.get(p).and_then(|pg| pg[i].as_ref());
                    let new = self.pages.get(p).and_then(|pg| pg[i].as_ref());
                    let same = match (old, new) {
                        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                        (None, None) => true,
                        _ => false,
                    };
                    (!same).then_some(((p << PAGE_BITS | i) as ObjId, old, new))
                })
            })
    }

    /// Validate an access of `len` bytes at pointer `p`; returns (object, offset).
    pub fn check(&self, p: u64, len: u64, write: bool) -> Result<(ObjId, u32), Failure> {
        let (obj, off) = ptr_parts(p);
        if obj == 0 {
            return Err(Failure::new(
                ErrorKind::NullDereference,
                format!(
                    "{} through a null pointer (address {:#x})",
                    if write { "write" } else { "read" },
                    p
                ),
            ));
        }
        if obj >= FUNCTION_OBJECT_BASE {
            return Err(Failure::new(
                ErrorKind::OutOfBounds,
                "access through a function pointer",
            ));
        }
        let Some(o) = self.get(obj) else {
            return Err(Failure::new(
                ErrorKind::OutOfBounds,
                format!("access through an invalid pointer {p:#x}"),
            ));
        };
        if o.freed {
            let what = if o.kind == ObjKind::Stack {
                "a stack object whose function has returned"
            } else {
                "freed memory"
            };
            return Err(Failure::new(
                ErrorKind::UseAfterFree,
                format!(
                    "{} of {} byte(s) in {what}",
                    if write { "write" } else { "read" },
                    len
                ),
            ));
        }
        if off as u64 + len > o.size() {
            return Err(Failure::new(
                ErrorKind::OutOfBounds,
                format!(
                    "{} of {len} byte(s) at offset {off} of an object of {} byte(s)",
                    if write { "write" } else { "read" },
                    o.size()
                ),
            ));
        }
        if write && o.constant {
            return Err(Failure::new(
                ErrorKind::OutOfBounds,
                "write to read-only memory (a constant)",
            ));
        }
        if o.shared && crate::hooks::observed() {
            // A string read (`len` 0) may read up to the object's end.
            let len = if len == 0 { o.size() - off as u64 } else { len };
            crate::hooks::report(|h| h.bytes(obj, off as u64, len.max(1), write));
        }
        Ok((obj, off))
    }

    pub(crate) fn read_bytes(&self, p: u64, len: u64) -> Result<&[u8], Failure> {
        let (obj, off) = self.check(p, len, false)?;
        let o = self.get(obj).expect("checked");
        Ok(&o.data[off as usize..off as usize + len as usize])
    }

    pub fn read_fragment(&self, p: u64, len: u64) -> Result<Fragment, Failure> {
        let (obj, off) = self.check(p, len, false)?;
        let o = self.get(obj).expect("checked");
        Ok(Fragment {
            data: o.data[off as usize..off as usize + len as usize].to_vec(),
            ptrs: o.ptrs_in(off, len as u32).collect(),
            undef: o
                .undef_in(off, len as u32)
                .map(<[u8]>::to_vec)
                .unwrap_or_default(),
        })
    }

    pub fn write_fragment(&mut self, p: u64, frag: &Fragment) -> Result<(), Failure> {
        self.write_fragment_from(p, frag, None)
    }

    /// `write_fragment`, whose undefined bits (if any) came from `origin` (for messages:
    /// `Object::undef_from`).
    pub(crate) fn write_fragment_from(
        &mut self,
        p: u64,
        frag: &Fragment,
        origin: Option<crate::definedness::Origin>,
    ) -> Result<(), Failure> {
        let len = frag.data.len() as u64;
        let (obj, off) = self.check(p, len, true)?;
        let o = self.get_mut(obj).expect("checked");
        o.data[off as usize..off as usize + len as usize].copy_from_slice(&frag.data);
        o.clear_ptrs(off, len as u32);
        for &rel in &frag.ptrs {
            o.add_ptr(off + rel);
        }
        o.set_undef(off, len as u32, &frag.undef);
        // The mask is scanned only when there is an origin to keep.
        let origin = origin.filter(|_| frag.undef.iter().any(|&b| b != 0));
        o.note_undef_from(off, len as u32, origin);
        Ok(())
    }

    /// Read a NUL-terminated string (without the NUL).
    pub(crate) fn read_c_string(&self, p: u64) -> Result<Vec<u8>, Failure> {
        let (obj, off) = self.check(p, 0, false)?;
        let o = self.get(obj).expect("checked");
        c_string_in(&o.data[off as usize..], u64::MAX)
    }

    /// Read a string of at most `max` bytes (strnlen, strncmp, ...): the bytes up to a
    /// NUL or up to `max`, whichever comes first. Only the bytes read must be valid.
    pub(crate) fn read_c_string_max(&self, p: u64, max: u64) -> Result<Vec<u8>, Failure> {
        if max == 0 {
            return Ok(Vec::new());
        }
        let (obj, off) = self.check(p, 0, false)?;
        let o = self.get(obj).expect("checked");
        c_string_in(&o.data[off as usize..], max)
    }

    pub(crate) fn object_of(&self, p: u64) -> Option<(ObjId, &Object)> {
        let (obj, _) = ptr_parts(p);
        self.get(obj).map(|o| (obj, o))
    }

    /// Mark `start` and everything reachable from it as shared; returns the objects
    /// that were not shared before.
    pub(crate) fn mark_shared(&mut self, start: ObjId) -> Vec<ObjId> {
        let mut newly = Vec::new();
        let mut stack = vec![start];
        while let Some(id) = stack.pop() {
            let Some(o) = self.get(id) else { continue };
            if o.shared {
                continue;
            }
            let targets: Vec<ObjId> = o
                .ptrs
                .iter()
                .map(|&off| ptr_parts(read_u64(&o.data, off)).0)
                .collect();
            if let Some(o) = self.get_mut(id) {
                o.shared = true;
                newly.push(id);
            }
            stack.extend(
                targets
                    .into_iter()
                    .filter(|&t| t != 0 && t < FUNCTION_OBJECT_BASE),
            );
        }
        newly
    }

    pub fn is_shared(&self, p: u64) -> bool {
        self.get(ptr_parts(p).0).is_some_and(|o| o.shared)
    }
}

#[inline]
pub(crate) fn read_u64(data: &[u8], off: u32) -> u64 {
    let o = off as usize;
    u64::from_le_bytes(data[o..o + 8].try_into().unwrap_or([0; 8]))
}

/// The C string `bytes` start with (`bytes`: the rest of its object from the string's
/// first byte): the bytes before its NUL, or its first `max` bytes when no NUL comes
/// first; an error when the object ends before either.
pub(crate) fn c_string_in(bytes: &[u8], max: u64) -> Result<Vec<u8>, Failure> {
    let limit = bytes.len().min(usize::try_from(max).unwrap_or(usize::MAX));
    match bytes[..limit].iter().position(|&b| b == 0) {
        Some(n) => Ok(bytes[..n].to_vec()),
        None if limit as u64 == max => Ok(bytes[..limit].to_vec()),
        None => Err(Failure::new(
            ErrorKind::OutOfBounds,
            "string is not NUL-terminated within its object",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Killing an object other memories still hold (a fresh tombstone) leaves what
    /// killing one held alone (emptied in place) leaves, and the other holders keep
    /// the live object.
    #[test]
    fn killing_a_shared_object_leaves_the_tombstone_of_a_sole_one() {
        let mut o = Object::new_undefined(16, ObjKind::Heap);
        o.data[3] = 7;
        o.ptrs.push(8);
        o.undef[0] = 0x0f;
        o.shared = true;
        o.site = Some(5);
        o.var = Some(2);
        o.alloc_family = 1;
        o.undef_from
            .push((0, 4, crate::definedness::Origin::Site(5)));
        o.chunk_cache.set(9);
        let mut sole = Memory::new();
        let id = sole.allocate(o.clone());
        let mut shared = Memory::new();
        assert_eq!(shared.allocate(o), id);
        let other = shared.clone();
        sole.kill(id);
        shared.kill(id);
        let dead = sole.get(id).expect("a tombstone stays");
        assert!(dead.freed && dead.data.is_empty() && dead.ptrs.is_empty());
        assert!(dead.undef.is_empty() && dead.chunk_cache.get() == 0);
        assert_eq!(
            format!("{:?}", shared.get(id)),
            format!("{:?}", sole.get(id))
        );
        let live = other.get(id).expect("the other memory's object");
        assert!(!live.freed && live.data[3] == 7 && live.ptrs == [8]);
        assert_eq!(live.chunk_cache.get(), 9);
    }

    /// `from_slots` builds the memory that filling the slots one by one builds: the same
    /// pages, length, free hint and objects, gaps and empty tails included.
    #[test]
    fn memory_from_slots_is_the_memory_filled_slot_by_slot() {
        let obj = Arc::new(Object::new(1, ObjKind::Heap));
        let mut long = vec![true; 11];
        long[2] = false;
        long[9] = false;
        long[10] = false;
        let patterns: [&[bool]; 7] = [
            &[],
            &[false],
            &[true],
            &[true, false],
            &[false, true],
            &[true; 8],
            &long,
        ];
        for p in patterns {
            let mut slots: Vec<Option<Arc<Object>>> = std::iter::once(None)
                .chain(p.iter().map(|&f| f.then(|| obj.clone())))
                .collect();
            let mut one_by_one = Memory::new();
            one_by_one.globals = 2;
            for (id, o) in slots.iter().enumerate() {
                if let Some(o) = o {
                    *one_by_one.slot_mut(id) = Some(o.clone());
                }
            }
            let built = Memory::from_slots(&mut slots, 2);
            let shape = |m: &Memory| (m.len, m.pages.len(), m.free_hint, m.globals);
            assert_eq!(shape(&built), shape(&one_by_one), "{p:?}");
            for id in 0..(built.len + PAGE) as ObjId {
                let (a, b) = (built.get_arc(id), one_by_one.get_arc(id));
                assert_eq!(a.is_some(), b.is_some(), "{p:?} {id}");
            }
        }
    }
}
