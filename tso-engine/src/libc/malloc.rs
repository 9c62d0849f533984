//! Heap allocation: malloc, calloc, realloc, free, aligned_alloc, posix_memalign.

use crate::error::Failure;
use crate::natives::{arg, NativeCx, NativeResult, Natives, Pointee, Visibility};
use crate::value::Val;

/// Allocation family of malloc'd memory (operator new uses 1 and new[] 2): memory must
/// be released by its own family.
pub(crate) const MALLOC: u8 = 0;

pub(crate) fn register(n: &mut Natives) {
    n.add("malloc", Visibility::Never, |cx, a| {
        alloc_uninit(cx, arg(a, 0)?, MALLOC)
    });
    n.add("calloc", Visibility::Never, |cx, a| {
        alloc(cx, arg(a, 0)?.saturating_mul(arg(a, 1)?), MALLOC)
    });
    n.add("aligned_alloc", Visibility::Never, |cx, a| {
        alloc_uninit(cx, arg(a, 1)?, MALLOC)
    });
    n.add("memalign", Visibility::Never, |cx, a| {
        alloc_uninit(cx, arg(a, 1)?, MALLOC)
    });
    n.add("posix_memalign", Visibility::Never, posix_memalign);
    n.add("realloc", Visibility::Never, realloc);
    n.add("free", Visibility::IfShared(0), |cx, a| {
        cx.release(arg(a, 0)?, MALLOC)?;
        Ok(NativeResult::Return(Val::Int(0)))
    });
}

/// A block whose bytes are undefined until written (malloc; see `crate::definedness`).
pub(crate) fn alloc_uninit(
    cx: &mut NativeCx<'_>,
    size: u64,
    family: u8,
) -> Result<NativeResult, Failure> {
    Ok(NativeResult::Return(
        match cx.allocate_uninit(size.max(1), family)? {
            Some(p) => Val::Ptr(p),
            None => Val::Int(0),
        },
    ))
}

/// A zeroed block (calloc).
pub(crate) fn alloc(cx: &mut NativeCx<'_>, size: u64, family: u8) -> Result<NativeResult, Failure> {
    Ok(NativeResult::Return(
        match cx.allocate(size.max(1), family)? {
            Some(p) => Val::Ptr(p),
            None => Val::Int(0),
        },
    ))
}

fn posix_memalign(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    // The result slot is checked before anything is allocated.
    cx.ptr_arg(a, 0, Pointee::write(8))?;
    match cx.allocate_uninit(arg(a, 2)?.max(1), MALLOC)? {
        Some(p) => {
            cx.write_ptr(arg(a, 0)?, &Val::Ptr(p))?;
            Ok(NativeResult::Return(Val::Int(0)))
        }
        None => Ok(NativeResult::Return(Val::Int(12))), // ENOMEM
    }
}

fn realloc(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    let (old, size) = (arg(a, 0)?, arg(a, 1)?);
    // The old block must be one realloc may release before anything is read from it.
    if old != 0 {
        cx.check_releasable(old, MALLOC)?;
    }
    // The new tail is undefined; the copied part keeps the old block's definedness.
    let Some(new) = cx.allocate_uninit(size.max(1), MALLOC)? else {
        return Ok(NativeResult::Return(Val::Int(0)));
    };
    if old != 0 {
        let old_size = cx.object(old).map(|o| o.size()).unwrap_or(0);
        if old_size > 0 {
            let frag = cx.read_fragment(old, old_size.min(size))?;
            cx.write_fragment(new, &frag)?;
        }
        cx.release(old, MALLOC)?;
    }
    Ok(NativeResult::Return(Val::Ptr(new)))
}
