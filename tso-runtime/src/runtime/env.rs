//! The engine as the store buffers see it: memory and choices, both through the
//! native call's context.

use crate::buffer::{Addr, Choice, Payload, Range, SharedMemory};
use std::cell::RefCell;
use tso_engine::{make_ptr, Failure, Fragment, NativeCx};

/// Memory and choices share one context; the buffers use them one at a time.
pub(crate) struct Env<'c, 'a> {
    pub cx: RefCell<&'c mut NativeCx<'a>>,
}

pub(crate) struct Mem<'e, 'c, 'a>(pub &'e Env<'c, 'a>);
pub(crate) struct Chooser<'e, 'c, 'a>(pub &'e Env<'c, 'a>);

impl SharedMemory for Mem<'_, '_, '_> {
    type Error = Failure;
    fn read(&self, range: Range) -> Result<Payload, Failure> {
        let mut cx = self.0.cx.borrow_mut();
        Ok(payload(
            cx.read_fragment(pointer(range.addr), range.len as u64)?,
        ))
    }
    fn write(&mut self, addr: Addr, data: &Payload) -> Result<(), Failure> {
        let mut cx = self.0.cx.borrow_mut();
        cx.write_fragment(pointer(addr), &fragment(data))
    }
}

/// A buffer address as the engine's pointer.
pub(crate) fn pointer(addr: Addr) -> u64 {
    make_ptr(addr.object, addr.offset)
}

/// The engine's bytes with provenance and definedness as a buffer payload.
pub(crate) fn payload(f: Fragment) -> Payload {
    Payload {
        data: f.data,
        ptr_offsets: f.ptrs,
        undef: f.undef,
    }
}

/// A buffer payload as the engine's bytes with provenance.
pub(crate) fn fragment(p: &Payload) -> Fragment {
    Fragment {
        data: p.data.clone(),
        ptrs: p.ptr_offsets.clone(),
        undef: p.undef.clone(),
    }
}

impl Choice for Chooser<'_, '_, '_> {
    fn choose(&mut self, n: usize) -> usize {
        self.0
            .cx
            .borrow_mut()
            .choose_as(n, tso_engine::ChoiceKind::BufferFlush)
    }

    fn choose_flush(&mut self, delayed: &[u32]) -> usize {
        self.0.cx.borrow_mut().choose_flush(delayed)
    }
}
