//! errno: `__errno_location` returns the calling thread's own int, created on first use.

use super::hidden::{thread_object, ERRNO};
use crate::memory::Fragment;
use crate::natives::{NativeResult, Natives, Visibility};
use crate::value::Val;

pub(crate) fn register(n: &mut Natives) {
    n.add("__errno_location", Visibility::Never, |cx, _| {
        let p = thread_object(cx, ERRNO, |_| Fragment::from_bytes(vec![0; 4]))?;
        Ok(NativeResult::Return(Val::Ptr(p)))
    });
}
