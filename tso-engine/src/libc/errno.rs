//! errno: `__errno_location` returns the calling thread's own int, created on first use.

use super::hidden::{thread_object, ERRNO};
use crate::error::Failure;
use crate::memory::Fragment;
use crate::natives::{NativeCx, NativeResult, Natives, Visibility};
use crate::value::Val;

pub(crate) fn register(n: &mut Natives) {
    n.add("__errno_location", Visibility::Never, |cx, _| {
        Ok(NativeResult::Return(Val::Ptr(location(cx)?)))
    });
}

fn location(cx: &mut NativeCx<'_>) -> Result<u64, Failure> {
    thread_object(cx, ERRNO, |_| Fragment::from_bytes(vec![0; 4]))
}

/// Set the calling thread's `errno` (a library function reporting an error).
pub(crate) fn set_errno(cx: &mut NativeCx<'_>, value: u32) -> Result<(), Failure> {
    let p = location(cx)?;
    cx.write_int(p, 4, value as u64)
}
