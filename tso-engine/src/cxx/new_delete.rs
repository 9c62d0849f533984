//! operator new / delete, in their array, sized and aligned forms.

use crate::error::{ErrorKind, Failure};
use crate::natives::arg;
use crate::natives::{NativeCx, NativeResult, Natives, Visibility};
use crate::value::Val;

const NEW: u8 = 1;
const NEW_ARRAY: u8 = 2;

pub(crate) fn register(n: &mut Natives) {
    for name in ["_Znwm", "_ZnwmSt11align_val_t", "_ZnwmRKSt9nothrow_t"] {
        n.add(name, Visibility::Never, |cx, a| new(cx, arg(a, 0)?, NEW));
    }
    for name in ["_Znam", "_ZnamSt11align_val_t", "_ZnamRKSt9nothrow_t"] {
        n.add(name, Visibility::Never, |cx, a| {
            new(cx, arg(a, 0)?, NEW_ARRAY)
        });
    }
    for name in [
        "_ZdlPv",
        "_ZdlPvm",
        "_ZdlPvSt11align_val_t",
        "_ZdlPvmSt11align_val_t",
    ] {
        n.add(name, Visibility::IfShared(0), |cx, a| {
            delete(cx, arg(a, 0)?, NEW)
        });
    }
    for name in [
        "_ZdaPv",
        "_ZdaPvm",
        "_ZdaPvSt11align_val_t",
        "_ZdaPvmSt11align_val_t",
    ] {
        n.add(name, Visibility::IfShared(0), |cx, a| {
            delete(cx, arg(a, 0)?, NEW_ARRAY)
        });
    }
}

fn new(cx: &mut NativeCx<'_>, size: u64, family: u8) -> Result<NativeResult, Failure> {
    // Like malloc, `new` memory is undefined until the constructor writes it.
    match cx.allocate_uninit(size.max(1), family)? {
        Some(p) => Ok(NativeResult::Return(Val::Ptr(p))),
        None => Err(Failure::new(ErrorKind::Abort, format!("operator new({size}) failed: allocation too large (std::bad_alloc with -fno-exceptions)"))),
    }
}

fn delete(cx: &mut NativeCx<'_>, p: u64, family: u8) -> Result<NativeResult, Failure> {
    cx.release(p, family)?;
    Ok(NativeResult::Return(Val::Int(0)))
}
