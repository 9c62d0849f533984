//! POSIX unnamed semaphores (`sem_init`, `sem_wait`, `sem_post`, ...). The count is the
//! first 4 bytes of the `sem_t`, so a semaphore's state is part of the program's memory
//! like every pthread object. A post releases to the semaphore and a successful wait
//! acquires from it (POSIX lists both as synchronising memory). Named semaphores
//! (`sem_open`) are not modelled.

use super::{cancel, SEMAPHORE, TIMESPEC_READ};
use crate::error::{ErrorKind, Failure};
use crate::libc::set_errno;
use crate::natives::{arg, NativeCx, NativeResult, Natives, Visibility};
use crate::value::Val;

/// glibc's `SEM_VALUE_MAX`.
const SEM_VALUE_MAX: u64 = i32::MAX as u64;
const EINVAL: u32 = 22;
const EAGAIN: u32 = 11;
const EOVERFLOW: u32 = 75;
const ETIMEDOUT: u32 = 110;

pub(crate) fn register(n: &mut Natives) {
    n.add("sem_init", Visibility::IfShared(0), |cx, a| {
        let s = cx.ptr_arg(a, 0, SEMAPHORE)?;
        let value = arg(a, 2)? as u32 as u64;
        if value > SEM_VALUE_MAX {
            return failed(cx, EINVAL);
        }
        cx.write_int(s, 4, value)?;
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.add("sem_destroy", Visibility::IfShared(0), |cx, a| {
        cx.ptr_arg(a, 0, SEMAPHORE)?;
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.add("sem_post", Visibility::Always, |cx, a| {
        let s = cx.ptr_arg(a, 0, SEMAPHORE)?;
        let count = cx.read_int(s, 4)?;
        if count >= SEM_VALUE_MAX {
            return failed(cx, EOVERFLOW);
        }
        cx.write_int(s, 4, count + 1)?;
        cx.race_release(s);
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.add("sem_wait", Visibility::Always, |cx, a| {
        let s = cx.ptr_arg(a, 0, SEMAPHORE)?;
        wait(cx, s, Wait::Blocking)
    });
    n.add("sem_trywait", Visibility::Always, |cx, a| {
        let s = cx.ptr_arg(a, 0, SEMAPHORE)?;
        wait(cx, s, Wait::Try)
    });
    n.add("sem_timedwait", Visibility::Always, |cx, a| {
        let s = cx.ptr_arg(a, 0, SEMAPHORE)?;
        cx.ptr_arg(a, 1, TIMESPEC_READ)?;
        wait(cx, s, Wait::Timed)
    });
    n.add("sem_getvalue", Visibility::Always, |cx, a| {
        let s = cx.ptr_arg(a, 0, SEMAPHORE)?;
        let out = cx.ptr_arg(a, 1, super::INT_SLOT)?;
        let count = cx.read_int(s, 4)?;
        cx.write_int(out, 4, count)?;
        Ok(NativeResult::Return(Val::Int(0)))
    });
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Wait {
    /// `sem_wait`: blocks until the count is positive.
    Blocking,
    /// `sem_trywait`: fails with `EAGAIN` instead of blocking.
    Try,
    /// `sem_timedwait`: may time out while the count is zero. The first step only
    /// yields, so other threads may post before the wait decides.
    Timed,
}

fn wait(cx: &mut NativeCx<'_>, s: u64, how: Wait) -> Result<NativeResult, Failure> {
    // sem_wait and sem_timedwait are cancellation points (also while blocked).
    if how != Wait::Try {
        if let Some(r) = cancel::point(cx)? {
            return Ok(r);
        }
    }
    if how == Wait::Timed && cx.phase() == 0 {
        cx.set_phase(1);
        return Ok(NativeResult::Yield);
    }
    let count = cx.read_int(s, 4)?;
    if count > SEM_VALUE_MAX {
        return Err(Failure::new(
            ErrorKind::PthreadMisuse,
            "wait on a semaphore that was never initialised with sem_init",
        ));
    }
    if count == 0 {
        return match how {
            Wait::Blocking => Ok(NativeResult::Block),
            Wait::Try => failed(cx, EAGAIN),
            Wait::Timed => {
                cx.note(|_, _| "the timed wait times out".to_string());
                failed(cx, ETIMEDOUT)
            }
        };
    }
    cx.write_int(s, 4, count - 1)?;
    cx.race_acquire(s);
    Ok(NativeResult::Return(Val::Int(0)))
}

/// Return -1 with `errno` set, as the semaphore functions report errors.
fn failed(cx: &mut NativeCx<'_>, errno: u32) -> Result<NativeResult, Failure> {
    set_errno(cx, errno)?;
    Ok(NativeResult::Return(Val::Int(u32::MAX as u128)))
}
