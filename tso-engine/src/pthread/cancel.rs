//! pthread_cancel with deferred cancellation, and cleanup handlers.
//!
//! A cancel request marks the target; the target acts on it only at a cancellation
//! point the engine models (pthread_join, pthread_cond_wait/timedwait, the sleeps,
//! pthread_testcancel) while cancellation is enabled. A thread blocked in a join or a
//! condition wait is woken by the request (a cancelled condition wait first retakes its
//! mutex, as POSIX says).
//!
//! Cleanup handlers are modelled the way glibc implements them for C: clang expands
//! `pthread_cleanup_push` into `__sigsetjmp(buf)` + `__pthread_register_cancel(buf)`,
//! with the handler call and `__pthread_unwind_next(buf)` on the path where the setjmp
//! returns again; `pthread_cleanup_pop(1)` calls `__pthread_unregister_cancel` and then
//! the handler. Registered buffers form a stack threaded through their `prev` fields.
//! Acting on a cancellation (or `pthread_exit`) with handlers registered longjmps into
//! the innermost buffer (see `libc::setjmp`); `__pthread_unwind_next` goes on with the
//! next one, and after the last ends the thread. Ending a thread runs its key destructors
//! (as callbacks into the same call, like pthread_exit), then the joiner gets
//! PTHREAD_CANCELED or the value passed to pthread_exit. While the handlers run, further
//! cancellation points do not act (glibc disables cancellation once it acts).
//!
//! The per-thread flags live in `Thread::specific` under reserved keys, so they are
//! part of the state.

use super::key::{next_destructor, set_specific, specific, RESERVED};
use crate::error::{ErrorKind, Failure};
use crate::natives::arg;
use crate::natives::{NativeCx, NativeResult, Natives, Visibility};
use crate::state::{State, ThreadId};
use crate::value::Val;

/// Reserved `specific` key of a thread's cancellation flags.
const CANCEL_FLAGS: u32 = RESERVED + 16;
/// Reserved `specific` key of the innermost registered cleanup buffer.
const CLEANUP_TOP: u32 = RESERVED + 17;
/// Reserved `specific` key of the value a thread running its cleanup handlers ends with.
const EXIT_VALUE: u32 = RESERVED + 18;
/// A cancel request has arrived and not yet been acted on.
const PENDING: u64 = 1;
/// pthread_setcancelstate(PTHREAD_CANCEL_DISABLE).
const DISABLED: u64 = 2;
/// The thread is being cancelled (running its key destructors).
const ACTING: u64 = 4;
/// The thread is running its cleanup handlers (cancelled or in pthread_exit).
const UNWINDING: u64 = 8;
/// Offset of `__pad[0]` (the previous buffer) in glibc's `__pthread_unwind_buf_t`.
const PREV_BUFFER: u64 = 72;
/// `(void *)-1`.
const PTHREAD_CANCELED: u128 = u64::MAX as u128;
const EINVAL: u128 = 22;
const ESRCH: u128 = 3;

pub(crate) fn register(n: &mut Natives) {
    n.add("pthread_cancel", Visibility::Always, |cx, a| {
        let h = arg(a, 0)?;
        let Some(t) = super::thread::thread_of_handle(cx.state, h) else {
            return Ok(NativeResult::Return(Val::Int(ESRCH)));
        };
        cx.footprint_thread(t);
        if cx.state.thread(t).status.is_running() {
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
    // Ends the thread once no handler is left: a scheduling point like pthread_exit.
    n.add("__pthread_unwind_next", Visibility::Always, unwind_next);
}

/// After a cleanup handler ran during cancellation or pthread_exit: enter the next
/// registered handler, or end the thread (key destructors first).
fn unwind_next(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    if flags(cx.state, cx.tid) & UNWINDING == 0 {
        return Err(Failure::new(
            ErrorKind::PthreadMisuse,
            "__pthread_unwind_next called while the thread is not being cancelled or exiting",
        ));
    }
    if cx.phase() == 0 {
        let prev = cx.read_ptr(arg(a, 0)? + PREV_BUFFER)?;
        if prev.as_u64() != 0 {
            return enter_handler(cx, prev.as_u64());
        }
        set_specific(cx.state, cx.tid, CLEANUP_TOP, Val::Int(0));
        cx.set_phase(1);
    }
    let _ = cx.callback_result();
    if let Some((destructor, value)) = next_destructor(cx) {
        return Ok(NativeResult::CallBack {
            func: destructor,
            args: vec![value],
        });
    }
    let value = specific(cx.state, cx.tid, EXIT_VALUE).unwrap_or(Val::Int(0));
    Ok(NativeResult::ThreadExit(value))
}

/// Start running the thread's cleanup handlers, to end with `value`: `Some` (the jump
/// into the innermost handler) when one is registered.
pub(crate) fn unwind(cx: &mut NativeCx<'_>, value: Val) -> Result<Option<NativeResult>, Failure> {
    let top = specific(cx.state, cx.tid, CLEANUP_TOP).map_or(0, |v| v.as_u64());
    if top == 0 {
        return Ok(None);
    }
    set_specific(cx.state, cx.tid, EXIT_VALUE, value);
    let f = flags(cx.state, cx.tid);
    set_flags(cx.state, cx.tid, (f & !PENDING) | UNWINDING);
    enter_handler(cx, top).map(Some)
}

/// Unregister cleanup buffer `buf` and longjmp into it: its setjmp returns 1, so the
/// code clang emitted there calls the handler and then `__pthread_unwind_next(buf)`.
fn enter_handler(cx: &mut NativeCx<'_>, buf: u64) -> Result<NativeResult, Failure> {
    let prev = cx.read_ptr(buf + PREV_BUFFER)?;
    set_specific(cx.state, cx.tid, CLEANUP_TOP, prev);
    cx.note(|_, _| "runs a cleanup handler".to_string());
    // The jmp_buf is the buffer's first field (`cancel_jmp_buf[0].jmp_buf`).
    crate::libc::setjmp::jump(cx, buf, 1)
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
    f & ACTING != 0 || f & (PENDING | DISABLED | UNWINDING) == PENDING
}

/// A cancellation point: `Some` with what the call must do when the calling thread is
/// (being) cancelled, `None` when the call goes on normally.
pub(crate) fn point(cx: &mut NativeCx<'_>) -> Result<Option<NativeResult>, Failure> {
    if !acts_now(cx.state, cx.tid) {
        return Ok(None);
    }
    let f = flags(cx.state, cx.tid);
    if f & ACTING == 0 {
        cx.note(|_, _| "acts on the cancel request".to_string());
        if let Some(r) = unwind(cx, Val::Int(PTHREAD_CANCELED))? {
            return Ok(Some(r));
        }
        set_flags(cx.state, cx.tid, (f & !PENDING) | ACTING);
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
