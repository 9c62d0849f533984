//! pthread_spin_*: modelled as plain (non-recursive) mutexes; the `pthread_spinlock_t`
//! int holds the owner (thread id + 1, 0 = unlocked). Spinning is blocking here, so a
//! spin lock that can never be released is reported as a deadlock.

use super::SPINLOCK;
use crate::error::{ErrorKind, Failure};
use crate::natives::{NativeCx, NativeResult, Natives, Visibility};
use crate::value::Val;

const EBUSY: u128 = 16;

pub(crate) fn register(n: &mut Natives) {
    n.add("pthread_spin_init", Visibility::IfShared(0), |cx, a| {
        cx.write_int(cx.ptr_arg(a, 0, SPINLOCK)?, 4, 0)?;
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.add("pthread_spin_lock", Visibility::Always, |cx, a| {
        lock(cx, cx.ptr_arg(a, 0, SPINLOCK)?, false)
    });
    n.add("pthread_spin_trylock", Visibility::Always, |cx, a| {
        lock(cx, cx.ptr_arg(a, 0, SPINLOCK)?, true)
    });
    n.add("pthread_spin_unlock", Visibility::Always, |cx, a| {
        let s = cx.ptr_arg(a, 0, SPINLOCK)?;
        let owner = cx.read_int(s, 4)?;
        if owner != cx.tid as u64 + 1 {
            let why = if owner == 0 {
                "unlock of a spin lock that is not locked"
            } else {
                "unlock of a spin lock held by another thread"
            };
            return Err(Failure::new(ErrorKind::PthreadMisuse, why));
        }
        cx.write_int(s, 4, 0)?;
        cx.race_release(s);
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.add("pthread_spin_destroy", Visibility::IfShared(0), |cx, a| {
        if cx.read_int(cx.ptr_arg(a, 0, SPINLOCK)?, 4)? != 0 {
            return Err(Failure::new(
                ErrorKind::PthreadMisuse,
                "destroy of a locked spin lock",
            ));
        }
        Ok(NativeResult::Return(Val::Int(0)))
    });
}

/// The thread holding spin lock `s` in a state, if any.
pub(crate) fn owner_in(st: &crate::state::State, s: u64) -> Option<crate::state::ThreadId> {
    super::thread_of(super::peek(st, s, 4)?)
}

fn lock(cx: &mut NativeCx<'_>, s: u64, try_only: bool) -> Result<NativeResult, Failure> {
    let me = cx.tid as u64 + 1;
    let owner = cx.read_int(s, 4)?;
    if owner == 0 {
        crate::pthread::stores_thread_ids(cx);
        cx.write_int(s, 4, me)?;
        cx.race_acquire(s);
        return Ok(NativeResult::Return(Val::Int(0)));
    }
    if try_only {
        return Ok(NativeResult::Return(Val::Int(EBUSY)));
    }
    if owner == me {
        return Err(Failure::new(
            ErrorKind::Deadlock,
            "a thread locked a spin lock it already holds",
        ));
    }
    Ok(NativeResult::Block)
}
