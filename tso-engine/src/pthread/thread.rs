//! pthread_create, join, exit, self, equal, detach, sched_yield.

use super::{check_only, key, ATTR, ATTR_READ, PTHREAD_T, RESULT_SLOT};
use crate::error::{ErrorKind, Failure};
use crate::natives::{arg, arg_val};
use crate::natives::{NativeCx, NativeResult, Natives, Visibility};
use crate::state::ThreadStatus;
use crate::value::Val;

/// pthread_t values are thread index + 1, so 0 is never a valid thread.
pub(crate) fn handle(tid: u32) -> u64 {
    tid as u64 + 1
}

pub(crate) fn register(n: &mut Natives) {
    n.add("pthread_create", Visibility::Always, create);
    n.add("pthread_join", Visibility::Always, join);
    n.add("pthread_exit", Visibility::Always, exit);
    n.add("pthread_self", Visibility::Never, |cx, _| {
        Ok(NativeResult::Return(Val::Int(handle(cx.tid) as u128)))
    });
    n.add("pthread_equal", Visibility::Never, |_, a| {
        Ok(NativeResult::Return(Val::bool(arg(a, 0)? == arg(a, 1)?)))
    });
    n.add("pthread_detach", Visibility::Always, detach);
    n.add("sched_yield", Visibility::Always, |_, _| {
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.alias("pthread_yield", "sched_yield");
    // Attributes are not modelled (every thread starts joinable), but the object must be
    // valid, as glibc writes it.
    n.add("pthread_attr_init", Visibility::Never, check_only(ATTR));
    n.alias("pthread_attr_destroy", "pthread_attr_init");
    n.alias("pthread_attr_setdetachstate", "pthread_attr_init");
    n.alias("pthread_attr_setstacksize", "pthread_attr_init");
}

fn create(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    // glibc writes the new thread's id through `out` unconditionally.
    let out = cx.ptr_arg(a, 0, PTHREAD_T)?;
    cx.opt_ptr_arg(a, 1, ATTR_READ)?;
    let func = arg_val(a, 2)?;
    let param = arg_val(a, 3)?;
    let tid = cx.spawn(func.as_u64(), vec![param])?;
    // The start routine's parameter keeps the argument's undefined bits: an error only
    // if the thread uses them.
    if let Some(u) = cx.arg_undefined_with_origin(3).cloned() {
        cx.state.thread_mut(tid).top_mut().set_undef(0, Some(u));
    }
    cx.write_int(out, 8, handle(tid))?;
    Ok(NativeResult::Return(Val::Int(0)))
}

/// pthread_exit: run the thread's cleanup handlers (see `cancel`), or else its key
/// destructors (one callback each), then end it.
fn exit(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    if cx.phase() == 0 {
        if let Some(r) = super::cancel::unwind(cx, arg_val(a, 0)?)? {
            return Ok(r);
        }
    }
    let _ = cx.callback_result();
    if let Some((destructor, value)) = key::next_destructor(cx) {
        cx.set_phase(1);
        return Ok(NativeResult::CallBack {
            func: destructor,
            args: vec![value],
        });
    }
    // The exit value keeps its undefined bits for the joiner (`ThreadExit` takes them
    // from the result's).
    cx.ret_undef = cx.arg_undefined_with_origin(0).cloned();
    Ok(NativeResult::ThreadExit(arg_val(a, 0)?))
}

fn target(cx: &NativeCx<'_>, h: u64) -> Result<u32, Failure> {
    if h == 0 || h as usize > cx.state.threads.len() {
        return Err(Failure::new(
            ErrorKind::PthreadMisuse,
            format!("no thread with handle {h}"),
        ));
    }
    Ok((h - 1) as u32)
}

pub(crate) fn join(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    // A cancellation point (also while blocked: a cancel request wakes the joiner).
    if let Some(r) = super::cancel::point(cx)? {
        return Ok(r);
    }
    let t = target(cx, arg(a, 0)?)?;
    let out = cx.opt_ptr_arg(a, 1, RESULT_SLOT)?;
    if t == cx.tid {
        return Err(Failure::new(ErrorKind::Deadlock, "a thread joined itself"));
    }
    let th = cx.state.thread(t);
    if th.joined {
        return Err(Failure::new(
            ErrorKind::PthreadMisuse,
            format!("thread {t} joined twice"),
        ));
    }
    if th.detached {
        return Err(Failure::new(
            ErrorKind::PthreadMisuse,
            format!("join of detached thread {t}"),
        ));
    }
    let ThreadStatus::Finished(exit) = th.status.clone() else {
        return Ok(NativeResult::Block);
    };
    cx.state.thread_mut(t).joined = true;
    cx.race_join(t);
    if out != 0 {
        let shadow = exit.undef.as_ref().map(|u| &u.shadow);
        cx.write_ptr_undefined(out, &exit.value, shadow)?;
    }
    Ok(NativeResult::Return(Val::Int(0)))
}

pub(crate) fn detach(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    let t = target(cx, arg(a, 0)?)?;
    if cx.state.thread(t).detached {
        return Err(Failure::new(
            ErrorKind::PthreadMisuse,
            format!("thread {t} detached twice"),
        ));
    }
    cx.state.thread_mut(t).detached = true;
    Ok(NativeResult::Return(Val::Int(0)))
}
