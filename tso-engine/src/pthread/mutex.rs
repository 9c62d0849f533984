//! pthread_mutex_*: normal, errorcheck and recursive mutexes.
//!
//! Layout follows glibc's `pthread_mutex_t` (x86-64) so its static initialisers work:
//! offset 4 holds the recursion count and 16 the kind (0 normal, 1 recursive, 2
//! errorcheck). The owner is the owning thread's handle (`thread::handle`, a pointer)
//! at offset 24, in glibc's `__list` field, which an all-zero initialiser leaves null
//! (unlocked); a pointer, not a thread number, so renaming threads renames it.

use super::thread::{handle, thread_of_handle};
use super::{check_only, MUTEX, MUTEXATTR, MUTEXATTR_READ, TIMESPEC_READ};
use crate::error::{ErrorKind, Failure};
use crate::natives::arg;
use crate::natives::{NativeCx, NativeResult, Natives, Visibility};
use crate::value::Val;

const COUNT: u64 = 4;
const OWNER: u64 = 24;
const KIND: u64 = 16;
const RECURSIVE: u64 = 1;
const ERRORCHECK: u64 = 2;
const EBUSY: u128 = 16;
const ETIMEDOUT: u128 = 110;

pub(crate) fn register(n: &mut Natives) {
    n.add("pthread_mutex_init", Visibility::IfShared(0), init);
    n.add("pthread_mutex_lock", Visibility::Always, |cx, a| {
        lock(cx, cx.ptr_arg(a, 0, MUTEX)?, false)
    });
    n.add("pthread_mutex_trylock", Visibility::Always, |cx, a| {
        lock(cx, cx.ptr_arg(a, 0, MUTEX)?, true)
    });
    n.add("pthread_mutex_timedlock", Visibility::Always, |cx, a| {
        cx.ptr_arg(a, 1, TIMESPEC_READ)?;
        timed_lock(cx, cx.ptr_arg(a, 0, MUTEX)?)
    });
    // (mutex, clockid, abstime): what libstdc++'s timed_mutex uses.
    n.add("pthread_mutex_clocklock", Visibility::Always, |cx, a| {
        cx.ptr_arg(a, 2, TIMESPEC_READ)?;
        timed_lock(cx, cx.ptr_arg(a, 0, MUTEX)?)
    });
    n.add("pthread_mutex_unlock", Visibility::Always, |cx, a| {
        unlock(cx, cx.ptr_arg(a, 0, MUTEX)?)
    });
    n.add("pthread_mutex_destroy", Visibility::IfShared(0), destroy);
    n.add("pthread_mutexattr_init", Visibility::Never, |cx, a| {
        cx.write_int(cx.ptr_arg(a, 0, MUTEXATTR)?, 4, 0)?;
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.add("pthread_mutexattr_settype", Visibility::Never, |cx, a| {
        cx.write_int(cx.ptr_arg(a, 0, MUTEXATTR)?, 4, arg(a, 1)?)?;
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.add(
        "pthread_mutexattr_destroy",
        Visibility::Never,
        check_only(MUTEXATTR),
    );
}

fn init(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    let m = cx.ptr_arg(a, 0, MUTEX)?;
    let attr = cx.opt_ptr_arg(a, 1, MUTEXATTR_READ)?;
    let kind = if attr != 0 { cx.read_int(attr, 4)? } else { 0 };
    write_unlocked(cx, m, kind)?;
    Ok(NativeResult::Return(Val::Int(0)))
}

/// Initialise an unlocked mutex, recursive or normal (C11 `mtx_init`).
pub(crate) fn init_kind(cx: &mut NativeCx<'_>, m: u64, recursive: bool) -> Result<(), Failure> {
    write_unlocked(cx, m, if recursive { RECURSIVE } else { 0 })
}

fn write_unlocked(cx: &mut NativeCx<'_>, m: u64, kind: u64) -> Result<(), Failure> {
    cx.write_int(m, 8, 0)?;
    cx.write_int(m + 8, 8, 0)?;
    cx.write_int(m + OWNER, 8, 0)?;
    cx.write_int(m + KIND, 4, kind)
}

/// Lock (or try to). A thread blocked on a mutex is simply not enabled.
/// `lock_blocks` mirrors when this blocks.
pub(crate) fn lock(cx: &mut NativeCx<'_>, m: u64, try_only: bool) -> Result<NativeResult, Failure> {
    let me = handle(cx.state, cx.tid);
    let owner = cx.read_int(m + OWNER, 8)?;
    let kind = cx.read_int(m + KIND, 4)?;
    if owner == 0 {
        cx.write_ptr(m + OWNER, &me)?;
        cx.write_int(m + COUNT, 4, 1)?;
        cx.race_acquire(m);
        return Ok(NativeResult::Return(Val::Int(0)));
    }
    if owner == me.as_u64() {
        match kind {
            RECURSIVE => {
                let c = cx.read_int(m + COUNT, 4)?;
                cx.write_int(m + COUNT, 4, c + 1)?;
                return Ok(NativeResult::Return(Val::Int(0)));
            }
            ERRORCHECK => return Ok(NativeResult::Return(Val::Int(35))), // EDEADLK
            _ if try_only => return Ok(NativeResult::Return(Val::Int(EBUSY))),
            _ => {
                return Err(Failure::new(
                    ErrorKind::Deadlock,
                    "a thread locked a (non-recursive) mutex it already holds",
                ))
            }
        }
    }
    if try_only {
        return Ok(NativeResult::Return(Val::Int(EBUSY)));
    }
    Ok(NativeResult::Block)
}

/// Whether `pthread_mutex_lock(m)` by `tid` in `st` surely blocks at once: the
/// conditions under which the registered lock (`ptr_arg` with `MUTEX`, then `lock`)
/// reaches `NativeResult::Block`: `m` is a whole writable mutex, and its owner word is
/// neither 0 (free) nor `tid`'s handle (a relock: counted, refused or an error). The
/// reads before blocking change nothing. Used by `Machine::blocks_at_once`; keep the
/// two in step.
pub(crate) fn lock_blocks(st: &crate::state::State, tid: crate::state::ThreadId, m: u64) -> bool {
    if st.memory.check(m, MUTEX.size, true).is_err() {
        return false;
    }
    super::peek(st, m + OWNER, 8)
        .is_some_and(|owner| owner != 0 && owner != handle(st, tid).as_u64())
}

/// A timed lock takes a free mutex at once. Otherwise it first yields, so other threads
/// may unlock it, and then takes it or times out (`ETIMEDOUT`, also when the caller
/// holds a normal mutex itself, as glibc does).
pub(crate) fn timed_lock(cx: &mut NativeCx<'_>, m: u64) -> Result<NativeResult, Failure> {
    match lock(cx, m, true)? {
        NativeResult::Return(Val::Int(EBUSY)) if cx.phase() == 0 => {
            cx.set_phase(1);
            Ok(NativeResult::Yield)
        }
        NativeResult::Return(Val::Int(EBUSY)) => {
            cx.note(|_, _| "the timed lock times out".to_string());
            Ok(NativeResult::Return(Val::Int(ETIMEDOUT)))
        }
        other => Ok(other),
    }
}

/// The thread holding mutex `m` in a state, if any.
pub(crate) fn owner_in(st: &crate::state::State, m: u64) -> Option<crate::state::ThreadId> {
    thread_of_handle(st, super::peek(st, m + OWNER, 8)?)
}

/// The holder of mutex `m` as thread id + 1 (0 = unlocked), and its recursion count.
pub(crate) fn holder(cx: &mut NativeCx<'_>, m: u64) -> Result<(u64, u64), Failure> {
    let owner = cx.read_int(m + OWNER, 8)?;
    let owner = match thread_of_handle(cx.state, owner) {
        Some(t) => t as u64 + 1,
        None if owner == 0 => 0,
        None => u64::MAX, // not a thread's handle: held by no thread that can unlock it
    };
    Ok((owner, cx.read_int(m + COUNT, 4)?))
}

pub(crate) fn unlock(cx: &mut NativeCx<'_>, m: u64) -> Result<NativeResult, Failure> {
    let me = handle(cx.state, cx.tid).as_u64();
    let owner = cx.read_int(m + OWNER, 8)?;
    if owner != me {
        // Reported for every kind, errorcheck included (where POSIX returns EPERM): the
        // unlock is a bug whether or not the program looks at the result.
        let why = if owner == 0 {
            "unlock of a mutex that is not locked"
        } else {
            "unlock of a mutex held by another thread"
        };
        return Err(Failure::new(ErrorKind::PthreadMisuse, why));
    }
    let c = cx.read_int(m + COUNT, 4)?;
    cx.race_release(m);
    if c > 1 {
        cx.write_int(m + COUNT, 4, c - 1)?;
    } else {
        cx.write_int(m + COUNT, 4, 0)?;
        cx.write_int(m + OWNER, 8, 0)?;
    }
    Ok(NativeResult::Return(Val::Int(0)))
}

fn destroy(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    let m = cx.ptr_arg(a, 0, MUTEX)?;
    if cx.read_int(m + OWNER, 8)? != 0 {
        return Err(Failure::new(
            ErrorKind::PthreadMisuse,
            "destroy of a locked mutex",
        ));
    }
    Ok(NativeResult::Return(Val::Int(0)))
}
