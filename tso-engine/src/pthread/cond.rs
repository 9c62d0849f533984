//! pthread_cond_*: condition variables (also behind std::condition_variable).
//!
//! State lives in the `pthread_cond_t` bytes (48 on x86-64, all zero when statically
//! initialised): offset 0 holds the mask of threads waiting for a signal, offset 8 the
//! mask of threads that were signalled but have not yet re-acquired their mutex.
//!
//! A wait is two steps: (1) check the caller holds the mutex, release it and join the
//! waiters (a scheduling point of its own, so a signal can come in between), then (2)
//! once signalled and the mutex is free, take the mutex and return.
//!
//! Spurious wake-ups (POSIX allows them) are a choice at step (1): the waiter either
//! joins the waiters or counts as woken without a signal. Waking at the start covers
//! waking at any later point: a woken waiter does nothing observable until it retakes
//! the mutex, which it may do at any later step. A waiter that chose to wait and is
//! never signalled stays blocked, so a lost signal is still a deadlock. A timed wait may
//! in addition time out (ETIMEDOUT) at any point where the mutex is free.

use super::{cancel, check_only, mutex, thread_bit, threads_in};
use super::{COND, CONDATTR, CONDATTR_READ, MUTEX, TIMESPEC_READ};
use crate::error::{ErrorKind, Failure};
use crate::memory::Fragment;
use crate::natives::{ChoiceKind, NativeCx, NativeResult, Natives, Visibility};
use crate::value::Val;

const WAITERS: u64 = 0;
const SIGNALLED: u64 = 8;
const COND_SIZE: u64 = 48;
const ETIMEDOUT: u128 = 110;
/// Race detection: a signal releases to the key `c + WAKE_KEY + t` of the thread `t`
/// it wakes, which acquires it as it wakes (signal→wake). Keys past the object's bytes
/// are only names; they go with the condition variable's object.
const WAKE_KEY: u64 = 1 << 16;

pub(crate) fn register(n: &mut Natives) {
    n.add("pthread_cond_init", Visibility::IfShared(0), |cx, a| {
        cx.opt_ptr_arg(a, 1, CONDATTR_READ)?;
        init(cx, cx.ptr_arg(a, 0, COND)?)?;
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.add("pthread_cond_wait", Visibility::Always, |cx, a| {
        wait(cx, cx.ptr_arg(a, 0, COND)?, cx.ptr_arg(a, 1, MUTEX)?, false)
    });
    n.add("pthread_cond_timedwait", Visibility::Always, |cx, a| {
        cx.ptr_arg(a, 2, TIMESPEC_READ)?;
        wait(cx, cx.ptr_arg(a, 0, COND)?, cx.ptr_arg(a, 1, MUTEX)?, true)
    });
    // (cond, mutex, clockid, abstime): what libstdc++'s wait_until/wait_for use.
    n.add("pthread_cond_clockwait", Visibility::Always, |cx, a| {
        cx.ptr_arg(a, 3, TIMESPEC_READ)?;
        wait(cx, cx.ptr_arg(a, 0, COND)?, cx.ptr_arg(a, 1, MUTEX)?, true)
    });
    n.add("pthread_cond_signal", Visibility::Always, |cx, a| {
        signal(cx, cx.ptr_arg(a, 0, COND)?)?;
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.add("pthread_cond_broadcast", Visibility::Always, |cx, a| {
        broadcast(cx, cx.ptr_arg(a, 0, COND)?)?;
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.add("pthread_cond_destroy", Visibility::IfShared(0), |cx, a| {
        destroy(cx, cx.ptr_arg(a, 0, COND)?)?;
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.add("pthread_condattr_init", Visibility::Never, |cx, a| {
        cx.write_int(cx.ptr_arg(a, 0, CONDATTR)?, 4, 0)?;
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.add(
        "pthread_condattr_destroy",
        Visibility::Never,
        check_only(CONDATTR),
    );
    n.alias("pthread_condattr_setclock", "pthread_condattr_destroy");
    n.alias("pthread_condattr_setpshared", "pthread_condattr_destroy");
}

/// (waiting, signalled-but-not-yet-returned) thread masks of condition `c` in a state.
pub(crate) fn masks_in(st: &crate::state::State, c: u64) -> Option<(u64, u64)> {
    Some((
        super::peek(st, c + WAITERS, 8)?,
        super::peek(st, c + SIGNALLED, 8)?,
    ))
}

pub(crate) fn init(cx: &mut NativeCx<'_>, c: u64) -> Result<(), Failure> {
    cx.write_fragment(c, &Fragment::from_bytes(vec![0; COND_SIZE as usize]))
}

/// Wait on condition `c` with mutex `m` (a pthread_mutex_t); `timed` waits may time out.
pub(crate) fn wait(
    cx: &mut NativeCx<'_>,
    c: u64,
    m: u64,
    timed: bool,
) -> Result<NativeResult, Failure> {
    let me = thread_bit(cx.tid)?;
    if cancel::acting(cx.state, cx.tid) {
        return Ok(cancel::point(cx)?.unwrap_or(NativeResult::Block));
    }
    if cx.phase() == 0 {
        let (owner, count) = mutex::holder(cx, m)?;
        if owner != cx.tid as u64 + 1 {
            return Err(Failure::new(
                ErrorKind::PthreadMisuse,
                "wait on a condition variable with a mutex the thread does not hold",
            ));
        }
        if count > 1 {
            return Err(Failure::unsupported(
                "unsupported: condition wait with a recursive mutex locked more than once",
            ));
        }
        // A cancellation point: a pending cancel acts before waiting, mutex held.
        if let Some(r) = cancel::point(cx)? {
            return Ok(r);
        }
        mutex::unlock(cx, m)?;
        if cx.spurious_wakeups() && cx.choose_as(2, ChoiceKind::SpuriousWakeup) == 1 {
            let signalled = cx.read_int(c + SIGNALLED, 8)?;
            crate::pthread::stores_thread_ids(cx);
            cx.write_int(c + SIGNALLED, 8, signalled | me)?;
            cx.note(|_, _| "wakes up spuriously (no signal)".to_string());
        } else {
            let waiters = cx.read_int(c + WAITERS, 8)?;
            crate::pthread::stores_thread_ids(cx);
            cx.write_int(c + WAITERS, 8, waiters | me)?;
        }
        cx.set_phase(1);
        return Ok(NativeResult::Yield);
    }
    let waiters = cx.read_int(c + WAITERS, 8)?;
    let signalled = cx.read_int(c + SIGNALLED, 8)?;
    if cancel::acts_now(cx.state, cx.tid) {
        // Cancelled while waiting: leave the waiters, retake the mutex, then act.
        if mutex::holder(cx, m)?.0 != 0 {
            return Ok(NativeResult::Block);
        }
        cx.write_int(c + WAITERS, 8, waiters & !me)?;
        cx.write_int(c + SIGNALLED, 8, signalled & !me)?;
        mutex::lock(cx, m, false)?;
        cx.set_phase(0);
        return Ok(cancel::point(cx)?.unwrap_or(NativeResult::Block));
    }
    let woken = signalled & me != 0;
    let times_out = !woken && timed && waiters & me != 0;
    if !woken && !times_out {
        return Ok(NativeResult::Block);
    }
    if mutex::holder(cx, m)?.0 != 0 {
        return Ok(NativeResult::Block);
    }
    if woken {
        cx.write_int(c + SIGNALLED, 8, signalled & !me)?;
        cx.race_acquire(c + WAKE_KEY + cx.tid as u64);
    } else {
        cx.write_int(c + WAITERS, 8, waiters & !me)?;
        cx.note(|_, _| "the timed wait times out".to_string());
    }
    mutex::lock(cx, m, false)?;
    Ok(NativeResult::Return(Val::Int(if woken {
        0
    } else {
        ETIMEDOUT
    })))
}

/// Wake one waiter, chosen nondeterministically (every choice is explored).
pub(crate) fn signal(cx: &mut NativeCx<'_>, c: u64) -> Result<(), Failure> {
    let waiters = cx.read_int(c + WAITERS, 8)?;
    let candidates = threads_in(waiters);
    if candidates.is_empty() {
        return Ok(());
    }
    let t = candidates[cx.choose_as(candidates.len(), ChoiceKind::Wakeup)];
    let bit = 1u64 << t;
    let signalled = cx.read_int(c + SIGNALLED, 8)?;
    cx.write_int(c + WAITERS, 8, waiters & !bit)?;
    cx.write_int(c + SIGNALLED, 8, signalled | bit)?;
    cx.race_release(c + WAKE_KEY + t as u64);
    cx.note(|_, _| format!("wakes thread {t}"));
    Ok(())
}

pub(crate) fn broadcast(cx: &mut NativeCx<'_>, c: u64) -> Result<(), Failure> {
    let waiters = cx.read_int(c + WAITERS, 8)?;
    if waiters == 0 {
        return Ok(());
    }
    let signalled = cx.read_int(c + SIGNALLED, 8)?;
    cx.write_int(c + WAITERS, 8, 0)?;
    cx.write_int(c + SIGNALLED, 8, signalled | waiters)?;
    for t in threads_in(waiters) {
        cx.race_release(c + WAKE_KEY + t as u64);
    }
    cx.note(|_, _| format!("wakes threads {:?}", threads_in(waiters)));
    Ok(())
}

pub(crate) fn destroy(cx: &mut NativeCx<'_>, c: u64) -> Result<(), Failure> {
    if cx.read_int(c + WAITERS, 8)? | cx.read_int(c + SIGNALLED, 8)? != 0 {
        return Err(Failure::new(
            ErrorKind::PthreadMisuse,
            "destroy of a condition variable threads are waiting on",
        ));
    }
    Ok(())
}
