//! The C library's hidden per-thread and per-process data (errno, the rand seed, the
//! ctype tables, strtok's position). It lives in `Thread::specific` under keys that
//! pthread_key_create never hands out, so it is part of the state and its pointers are
//! roots. Per-process data is kept with thread 0.

use crate::error::Failure;
use crate::memory::Fragment;
use crate::natives::NativeCx;
use crate::pthread::key::{set_specific, specific, RESERVED};
use crate::value::Val;

pub(crate) const ERRNO: u32 = RESERVED + 1;
pub(crate) const RAND_SEED: u32 = RESERVED + 2;
pub(crate) const CTYPE_CLASS: u32 = RESERVED + 3;
pub(crate) const CTYPE_TOUPPER: u32 = RESERVED + 4;
pub(crate) const CTYPE_TOLOWER: u32 = RESERVED + 5;
pub(crate) const STRTOK_NEXT: u32 = RESERVED + 6;

/// Allocation family of the library's own objects: freeing one is an invalid free.
pub(crate) const LIBC_INTERNAL: u8 = 0xE0;
/// Allocation family of setjmp's frame markers (see `setjmp`).
pub(crate) const SETJMP_MARK: u8 = 0xE1;

pub(crate) fn get(cx: &NativeCx<'_>, per_process: bool, key: u32) -> Option<Val> {
    specific(cx.state, if per_process { 0 } else { cx.tid }, key)
}

pub(crate) fn set(cx: &mut NativeCx<'_>, per_process: bool, key: u32, v: Val) {
    let tid = if per_process { 0 } else { cx.tid };
    set_specific(cx.state, tid, key, v);
}

/// The calling thread's object for `key`, created on first use with `init` as contents.
pub(crate) fn thread_object(
    cx: &mut NativeCx<'_>,
    key: u32,
    init: impl Fn(u64) -> Fragment,
) -> Result<u64, Failure> {
    if let Some(p) = get(cx, false, key) {
        return Ok(p.as_u64());
    }
    let frag = init(0);
    let Some(p) = cx.allocate(frag.data.len() as u64, LIBC_INTERNAL)? else {
        return Err(Failure::unsupported(
            "unsupported: out of memory for the C library's per-thread data",
        ));
    };
    // Pointers inside `init`'s fragment are offsets into the object itself.
    let mut frag = init(p);
    frag.ptrs.sort_unstable();
    cx.write_fragment(p, &frag)?;
    set(cx, false, key, Val::Ptr(p));
    Ok(p)
}
