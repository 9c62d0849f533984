//! std::condition_variable's out-of-line members. The object is a `pthread_cond_t`
//! (48 bytes) and a `unique_lock<mutex>` is {mutex*, bool owns}, with the
//! `pthread_mutex_t` at offset 0 of the std::mutex, so the logic is pthread_cond's.

use crate::error::Failure;
use crate::natives::{NativeCx, NativeResult, Natives, Pointee, Visibility};
use crate::pthread::{cond, COND, MUTEX};

/// `std::unique_lock<std::mutex>`: {mutex*, bool owns}, read by wait.
const UNIQUE_LOCK: Pointee = Pointee::read(16);
use crate::value::Val;

pub(crate) fn register(n: &mut Natives) {
    n.add(
        "_ZNSt18condition_variableC1Ev",
        Visibility::IfShared(0),
        |cx, a| {
            cond::init(cx, cx.ptr_arg(a, 0, COND)?)?;
            Ok(NativeResult::Return(Val::Int(0)))
        },
    );
    n.alias(
        "_ZNSt18condition_variableC2Ev",
        "_ZNSt18condition_variableC1Ev",
    );
    n.add(
        "_ZNSt18condition_variableD1Ev",
        Visibility::IfShared(0),
        |cx, a| {
            cond::destroy(cx, cx.ptr_arg(a, 0, COND)?)?;
            Ok(NativeResult::Return(Val::Int(0)))
        },
    );
    n.alias(
        "_ZNSt18condition_variableD2Ev",
        "_ZNSt18condition_variableD1Ev",
    );
    n.add(
        "_ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE",
        Visibility::Always,
        wait,
    );
    n.add(
        "_ZNSt18condition_variable10notify_oneEv",
        Visibility::Always,
        |cx, a| {
            cond::signal(cx, cx.ptr_arg(a, 0, COND)?)?;
            Ok(NativeResult::Return(Val::Int(0)))
        },
    );
    n.add(
        "_ZNSt18condition_variable10notify_allEv",
        Visibility::Always,
        |cx, a| {
            cond::broadcast(cx, cx.ptr_arg(a, 0, COND)?)?;
            Ok(NativeResult::Return(Val::Int(0)))
        },
    );
}

fn wait(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    let (this, lock) = (cx.ptr_arg(a, 0, COND)?, cx.ptr_arg(a, 1, UNIQUE_LOCK)?);
    let mutex = cx.read_ptr(lock)?.as_u64();
    cx.check(mutex, MUTEX.size, MUTEX.access)?;
    match cond::wait(cx, this, mutex, false)? {
        NativeResult::Return(_) => Ok(NativeResult::Return(Val::Int(0))),
        other => Ok(other),
    }
}
