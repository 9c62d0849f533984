//! C11 `<threads.h>` on the pthread models, as glibc builds it: `thrd_t` is a
//! `pthread_t`, `mtx_t`, `cnd_t`, `once_flag` and `tss_t` are the pthread objects. Only
//! the start routine's type (`int (*)(void *)`) and the results differ: `thrd_success`,
//! `thrd_busy`, `thrd_timedout`.

use super::thread::{join_into, start, JoinResult};
use super::{cond, mutex, COND, MUTEX, PTHREAD_T, TIMESPEC_READ};
use crate::error::Failure;
use crate::natives::{arg, NativeCx, NativeResult, Natives, Visibility};
use crate::value::Val;

// glibc's <threads.h> values.
const THRD_SUCCESS: u128 = 0;
const THRD_BUSY: u128 = 1;
const THRD_TIMEDOUT: u128 = 4;
const MTX_RECURSIVE: u64 = 1;
/// pthread's results for the same outcomes.
const EBUSY: u128 = 16;
const ETIMEDOUT: u128 = 110;

pub(crate) fn register(n: &mut Natives) {
    n.add("thrd_create", Visibility::Always, create);
    n.carry_undefined("thrd_create", 1 << 2);
    n.add("thrd_join", Visibility::Always, |cx, a| {
        join_into(cx, a, JoinResult::Int)
    });
    // Same arguments and results as their pthread counterparts.
    n.alias("thrd_exit", "pthread_exit");
    n.alias("thrd_current", "pthread_self");
    n.alias("thrd_equal", "pthread_equal");
    n.alias("thrd_detach", "pthread_detach");
    n.alias("thrd_yield", "sched_yield");
    n.alias("thrd_sleep", "nanosleep");
    n.alias("mtx_lock", "pthread_mutex_lock");
    n.alias("mtx_unlock", "pthread_mutex_unlock");
    n.alias("mtx_destroy", "pthread_mutex_destroy");
    n.alias("cnd_signal", "pthread_cond_signal");
    n.alias("cnd_broadcast", "pthread_cond_broadcast");
    n.alias("cnd_wait", "pthread_cond_wait");
    n.alias("cnd_destroy", "pthread_cond_destroy");
    n.alias("call_once", "pthread_once");
    n.alias("tss_create", "pthread_key_create");
    n.alias("tss_delete", "pthread_key_delete");
    n.alias("tss_get", "pthread_getspecific");
    n.alias("tss_set", "pthread_setspecific");
    n.add("mtx_init", Visibility::IfShared(0), |cx, a| {
        let m = cx.ptr_arg(a, 0, MUTEX)?;
        // mtx_plain/mtx_timed are a normal mutex, mtx_recursive a recursive one.
        let recursive = arg(a, 1)? & MTX_RECURSIVE != 0;
        mutex::init_kind(cx, m, recursive)?;
        Ok(NativeResult::Return(Val::Int(THRD_SUCCESS)))
    });
    n.add("mtx_trylock", Visibility::Always, |cx, a| {
        let r = mutex::lock(cx, cx.ptr_arg(a, 0, MUTEX)?, true)?;
        Ok(translate(r, EBUSY, THRD_BUSY))
    });
    n.add("mtx_timedlock", Visibility::Always, |cx, a| {
        cx.ptr_arg(a, 1, TIMESPEC_READ)?;
        let r = mutex::timed_lock(cx, cx.ptr_arg(a, 0, MUTEX)?)?;
        Ok(translate(r, ETIMEDOUT, THRD_TIMEDOUT))
    });
    n.add("cnd_init", Visibility::IfShared(0), |cx, a| {
        cond::init(cx, cx.ptr_arg(a, 0, COND)?)?;
        Ok(NativeResult::Return(Val::Int(THRD_SUCCESS)))
    });
    n.add("cnd_timedwait", Visibility::Always, |cx, a| {
        cx.ptr_arg(a, 2, TIMESPEC_READ)?;
        let r = cond::wait(cx, cx.ptr_arg(a, 0, COND)?, cx.ptr_arg(a, 1, MUTEX)?, true)?;
        Ok(translate(r, ETIMEDOUT, THRD_TIMEDOUT))
    });
}

/// thrd_create(thr, func, arg): a thread running `func(arg)`; its `int` result is what
/// `thrd_join` reads.
fn create(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    let out = cx.ptr_arg(a, 0, PTHREAD_T)?;
    start(cx, a, out, 1)?;
    Ok(NativeResult::Return(Val::Int(THRD_SUCCESS)))
}

/// A pthread result `from` becomes the C11 result `to`; success (0) is the same.
fn translate(r: NativeResult, from: u128, to: u128) -> NativeResult {
    match r {
        NativeResult::Return(Val::Int(v)) if v == from => NativeResult::Return(Val::Int(to)),
        other => other,
    }
}
