//! The engine as the store buffers see it: memory and choices, both through the
//! native call's context.

use crate::buffer::{Addr, Choice, Payload, Range, SharedMemory};
use std::cell::RefCell;
use tso_engine::memory::Fragment;
use tso_engine::natives::NativeCx;
use tso_engine::value::make_ptr;
use tso_engine::Failure;

/// Memory and choices share one context; the buffers use them one at a time.
pub struct Env<'c, 'a> {
    pub cx: RefCell<&'c mut NativeCx<'a>>,
}

pub struct Mem<'e, 'c, 'a>(pub &'e Env<'c, 'a>);
pub struct Chooser<'e, 'c, 'a>(pub &'e Env<'c, 'a>);

impl SharedMemory for Mem<'_, '_, '_> {
    type Error = Failure;
    fn read(&self, range: Range) -> Result<Payload, Failure> {
        let cx = self.0.cx.borrow();
        let f = cx.read_fragment(
            make_ptr(range.addr.object, range.addr.offset),
            range.len as u64,
        )?;
        Ok(Payload {
            data: f.data,
            ptr_offsets: f.ptrs,
            undef: f.undef,
        })
    }
    fn write(&mut self, addr: Addr, data: &Payload) -> Result<(), Failure> {
        let mut cx = self.0.cx.borrow_mut();
        cx.write_fragment(
            make_ptr(addr.object, addr.offset),
            &Fragment {
                data: data.data.clone(),
                ptrs: data.ptr_offsets.clone(),
                undef: data.undef.clone(),
            },
        )
    }
}

impl Choice for Chooser<'_, '_, '_> {
    fn choose(&mut self, n: usize) -> usize {
        self.0
            .cx
            .borrow_mut()
            .choose_as(n, tso_engine::natives::ChoiceKind::BufferFlush)
    }
}
