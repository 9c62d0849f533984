//! qsort and bsearch, calling the program's comparison function as callbacks.
//!
//! qsort is an insertion sort, one comparison per callback; between callbacks the
//! position (i, j) lives in the call's phase as `i << 16 | j`, so arrays are limited to
//! 65535 elements. bsearch keeps (lo, hi) the same way. The comparison function's
//! result is recognised by the phase being non-zero.

use crate::error::Failure;
use crate::natives::{arg, arg_val, Access};
use crate::natives::{NativeCx, NativeResult, Natives, Visibility};
use crate::value::Val;

const MAX_ELEMENTS: u64 = 0xFFFF;

pub(crate) fn register(n: &mut Natives) {
    n.add("qsort", Visibility::IfShared(0), qsort);
    n.add("bsearch", Visibility::IfShared2(0, 1), bsearch);
}

/// A pointer to element `k`, keeping the base pointer's provenance.
fn element(base: &Val, size: u64, k: u64) -> Val {
    match base {
        Val::Ptr(p) => Val::Ptr(p + k * size),
        other => Val::Int((other.as_u64() + k * size) as u128),
    }
}

fn too_many(n: u64) -> Failure {
    Failure::unsupported(format!(
        "unsupported: qsort/bsearch over {n} elements (at most {MAX_ELEMENTS} are modelled)"
    ))
}

fn qsort(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    let base = arg_val(a, 0)?;
    let (n, size, cmp) = (arg(a, 1)?, arg(a, 2)?, arg(a, 3)?);
    if n > MAX_ELEMENTS {
        return Err(too_many(n));
    }
    if cx.phase() == 0 {
        // The whole array is read and rearranged.
        cx.check(base.as_u64(), n.saturating_mul(size), Access::Write)?;
    }
    let result = cx.callback_result();
    let phase = cx.phase();
    let (mut i, mut j) = if phase == 0 {
        (1u64, 1u64)
    } else {
        ((phase >> 16) as u64, (phase & 0xFFFF) as u64)
    };
    if phase != 0 {
        let order = result.map(|r| r.bits() as u32 as i32).unwrap_or(0);
        if order > 0 {
            let (x, y) = (
                element(&base, size, j - 1).as_u64(),
                element(&base, size, j).as_u64(),
            );
            let (fx, fy) = (cx.read_fragment(x, size)?, cx.read_fragment(y, size)?);
            cx.write_fragment(x, &fy)?;
            cx.write_fragment(y, &fx)?;
            j -= 1;
        } else {
            j = 0;
        }
        if j == 0 {
            i += 1;
            j = i;
        }
    }
    if i >= n {
        return Ok(NativeResult::Return(Val::Int(0)));
    }
    cx.set_phase((i << 16 | j) as u32);
    Ok(NativeResult::CallBack {
        func: cmp,
        args: vec![element(&base, size, j - 1), element(&base, size, j)],
    })
}

fn bsearch(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    let key = arg_val(a, 0)?;
    let base = arg_val(a, 1)?;
    let (n, size, cmp) = (arg(a, 2)?, arg(a, 3)?, arg(a, 4)?);
    if n > MAX_ELEMENTS {
        return Err(too_many(n));
    }
    if cx.phase() == 0 {
        cx.check(base.as_u64(), n.saturating_mul(size), Access::Read)?;
    }
    let result = cx.callback_result();
    let phase = cx.phase();
    let (mut lo, mut hi) = if phase == 0 {
        (0u64, n)
    } else {
        ((phase >> 16) as u64, (phase & 0xFFFF) as u64)
    };
    if phase != 0 {
        let mid = (lo + hi) / 2;
        let order = result.map(|r| r.bits() as u32 as i32).unwrap_or(0);
        match order {
            0 => return Ok(NativeResult::Return(element(&base, size, mid))),
            o if o < 0 => hi = mid,
            _ => lo = mid + 1,
        }
    }
    if lo >= hi {
        return Ok(NativeResult::Return(Val::Int(0)));
    }
    cx.set_phase((lo << 16 | hi) as u32);
    Ok(NativeResult::CallBack {
        func: cmp,
        args: vec![key, element(&base, size, (lo + hi) / 2)],
    })
}
