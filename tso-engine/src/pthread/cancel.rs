//! pthread_cancel with deferred cancellation.
//!
//! A cancel request marks the target; the target acts on it only at a cancellation
//! point the engine models (pthread_join, pthread_cond_wait/timedwait, the sleeps,
//! pthread_testcancel) while cancellation is enabled. Acting runs the thread's key
//! destructors (as callbacks into the same call, like pthread_exit) and then ends the
//! thread with PTHREAD_CANCELED. A thread blocked in a join or a condition wait is woken
//! by the request (a cancelled condition wait first retakes its mutex, as POSIX says).
//!
//! The per-thread flags live in `Thread::specific` under a reserved key, so they are
//! part of the state. Cleanup handlers (`pthread_cleanup_push`/`pop`, which glibc
//! expands into `__sigsetjmp` + `__pthread_register_cancel`/`__pthread_unregister_cancel`)
//! are registered here as a stack threaded through their `__pthread_unwind_buf_t`s;
//! popping them and `pthread_cleanup_pop(1)` work. Acting on a cancellation while a
//! handler is registered would have to longjmp into the handler's frame: that is
//! reported as unsupported instead of skipping the handler.

use super::key::{next_destructor, set_specific, specific, RESERVED};
use crate::error::Failure;
use crate::natives::arg;
use crate::natives::{NativeCx, NativeResult, Natives, Visibility};
use crate::state::{State, ThreadId, ThreadStatus};
use crate::value::Val;

/// Reserved `specific` key of a thread's cancellation flags.
const CANCEL_FLAGS: u32 = RESERVED + 16;
/// Reserved `specific` key of the innermost registered cleanup buffer.
const CLEANUP_TOP: u32 = RESERVED + 17;
/// A cancel request has arrived and not yet been acted on.
const PENDING: u64 = 1;
/// pthread_setcancelstate(PTHREAD_CANCEL_DISABLE).
const DISABLED: u64 = 2;
/// The thread is being cancelled (running its key destructors).
const ACTING: u64 = 4;
/// Offset of `__pad[0]` (the previous buffer) in glibc's `__pthread_unwind_buf_t`.
const PREV_BUFFER: u64 = 72;
/// `(void *)-1`.
const PTHREAD_CANCELED: u128 = u64::MAX as u128;
const EINVAL: u128 = 22;
const ESRCH: u128 = 3;

pub fn register(n: &mut Natives) {
    n.add("pthread_cancel", Visibility::Always, |cx, a| {
        let h = arg(a, 0)?;
        let Some(t) = super::thread_of(h).filter(|&t| (t as usize) < cx.state.threads.len()) else {
            return Ok(NativeResult::Return(Val::Int(ESRCH)));
        };
        if cx.state.thread(t).status == ThreadStatus::Running {
            let f = flags(cx.state, t);
            set_flags(cx.state, t, f | PENDING);
            cx.note(|_, _| format!("asks thread {t} to cancel"));
        }
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.add("pthread_setcancelstate", Visibility::Never, |cx, a| {
        let (state, old) = (arg(a, 0)?, arg(a, 1)?);
        if state > 1 {
            return Ok(NativeResult::Return(Val::Int(EINVAL)));
        }
        let f = flags(cx.state, cx.tid);
        if old != 0 {
            cx.write_int(old, 4, u64::from(f & DISABLED != 0))?;
        }
        let f = if state == 1 {
            f | DISABLED
        } else {
            f & !DISABLED
        };
        set_flags(cx.state, cx.tid, f);
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.add("pthread_setcanceltype", Visibility::Never, |cx, a| {
        let (kind, old) = (arg(a, 0)?, arg(a, 1)?);
        if kind == 1 {
            return Err(Failure::unsupported(
                "unsupported: asynchronous cancellation (PTHREAD_CANCEL_ASYNCHRONOUS); only deferred cancellation is modelled",
            ));
        }
        if kind > 1 {
            return Ok(NativeResult::Return(Val::Int(EINVAL)));
        }
        if old != 0 {
            cx.write_int(old, 4, 0)?;
        }
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.add("pthread_testcancel", Visibility::Always, |cx, _| {
        Ok(point(cx)?.unwrap_or(NativeResult::Return(Val::Int(0))))
    });
    n.add("__pthread_register_cancel", Visibility::Never, |cx, a| {
        let buf = arg(a, 0)?;
        let top = specific(cx.state, cx.tid, CLEANUP_TOP).unwrap_or(Val::Int(0));
        cx.write_ptr(buf + PREV_BUFFER, &top)?;
        set_specific(cx.state, cx.tid, CLEANUP_TOP, Val::Ptr(buf));
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.add("__pthread_unregister_cancel", Visibility::Never, |cx, a| {
        let prev = cx.read_ptr(arg(a, 0)? + PREV_BUFFER)?;
        set_specific(cx.state, cx.tid, CLEANUP_TOP, prev);
        Ok(NativeResult::Return(Val::Int(0)))
    });
}

fn flags(st: &State, t: ThreadId) -> u64 {
    specific(st, t, CANCEL_FLAGS).map_or(0, |v| v.as_u64())
}

fn set_flags(st: &mut State, t: ThreadId, f: u64) {
    set_specific(st, t, CANCEL_FLAGS, Val::Int(f as u128));
}

/// Is thread `t` already being cancelled (running its key destructors)?
pub(crate) fn acting(st: &State, t: ThreadId) -> bool {
    flags(st, t) & ACTING != 0
}

/// Does thread `t` act on a cancellation at its next cancellation point?
pub(crate) fn acts_now(st: &State, t: ThreadId) -> bool {
    let f = flags(st, t);
    f & ACTING != 0 || f & (PENDING | DISABLED) == PENDING
}

/// A cancellation point: `Some` with what the call must do when the calling thread is
/// (being) cancelled, `None` when the call goes on normally.
pub fn point(cx: &mut NativeCx<'_>) -> Result<Option<NativeResult>, Failure> {
    if !acts_now(cx.state, cx.tid) {
        return Ok(None);
    }
    let f = flags(cx.state, cx.tid);
    if f & ACTING == 0 {
        if specific(cx.state, cx.tid, CLEANUP_TOP).is_some_and(|v| v.as_u64() != 0) {
            return Err(Failure::unsupported(
                "unsupported: cancelling a thread that has cleanup handlers registered (pthread_cleanup_push): running them needs a longjmp into their frame",
            ));
        }
        set_flags(cx.state, cx.tid, (f & !PENDING) | ACTING);
        cx.note(|_, _| "acts on the cancel request".to_string());
    }
    let _ = cx.callback_result();
    if let Some((destructor, value)) = next_destructor(cx) {
        return Ok(Some(NativeResult::CallBack {
            func: destructor,
            args: vec![value],
        }));
    }
    Ok(Some(NativeResult::ThreadExit(Val::Int(PTHREAD_CANCELED))))
}
