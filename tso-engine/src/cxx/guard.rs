//! __cxa_guard_acquire/release/abort: thread-safe initialisation of static locals.
//!
//! The 64-bit guard's first byte is the "done" flag the compiler tests inline; bytes 4..8
//! hold the initialising thread (id + 1). Acquire returns 1 when the caller must run the
//! initialiser, 0 when it is done, and blocks while another thread runs it.

use crate::error::{ErrorKind, Failure};
use crate::natives::{NativeCx, NativeResult, Natives, Pointee, Visibility};
use crate::value::Val;

const DONE: u64 = 0;
const OWNER: u64 = 4;
/// The guard variable: 64 bits, written by every guard function.
const GUARD: Pointee = Pointee::write(8);

pub(crate) fn register(n: &mut Natives) {
    n.add("__cxa_guard_acquire", Visibility::Always, acquire);
    n.add("__cxa_guard_release", Visibility::Always, |cx, a| {
        let g = cx.ptr_arg(a, 0, GUARD)?;
        cx.write_int(g + DONE, 1, 1)?;
        cx.write_int(g + OWNER, 4, 0)?;
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.add("__cxa_guard_abort", Visibility::Always, |cx, a| {
        cx.write_int(cx.ptr_arg(a, 0, GUARD)? + OWNER, 4, 0)?;
        Ok(NativeResult::Return(Val::Int(0)))
    });
}

fn acquire(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    let g = cx.ptr_arg(a, 0, GUARD)?;
    if cx.read_int(g + DONE, 1)? != 0 {
        return Ok(NativeResult::Return(Val::Int(0)));
    }
    let me = cx.tid as u64 + 1;
    match cx.read_int(g + OWNER, 4)? {
        0 => {
            crate::pthread::stores_thread_ids(cx);
            cx.write_int(g + OWNER, 4, me)?;
            Ok(NativeResult::Return(Val::Int(1)))
        }
        o if o == me => Err(Failure::new(
            ErrorKind::Deadlock,
            "a static local's initialiser recursively needs the same static local",
        )),
        _ => Ok(NativeResult::Block),
    }
}
