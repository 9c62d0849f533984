//! std::condition_variable's out-of-line members. The object is a `pthread_cond_t`
//! (48 bytes) and a `unique_lock<mutex>` is {mutex*, bool owns}, with the
//! `pthread_mutex_t` at offset 0 of the std::mutex, so the logic is pthread_cond's.

use crate::error::Failure;
use crate::libc_arg as arg;
use crate::natives::{NativeCx, NativeResult, Natives, Visibility};
use crate::pthread::cond;
use crate::value::Val;

pub fn register(n: &mut Natives) {
    n.add(
        "_ZNSt18condition_variableC1Ev",
        Visibility::IfShared(0),
        |cx, a| {
            cond::init(cx, arg(a, 0))?;
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
            cond::destroy(cx, arg(a, 0))?;
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
            cond::signal(cx, arg(a, 0))?;
            Ok(NativeResult::Return(Val::Int(0)))
        },
    );
    n.add(
        "_ZNSt18condition_variable10notify_allEv",
        Visibility::Always,
        |cx, a| {
            cond::broadcast(cx, arg(a, 0))?;
            Ok(NativeResult::Return(Val::Int(0)))
        },
    );
}

fn wait(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    let (this, lock) = (arg(a, 0), arg(a, 1));
    let mutex = cx.read_ptr(lock)?.as_u64();
    match cond::wait(cx, this, mutex, false)? {
        NativeResult::Return(_) => Ok(NativeResult::Return(Val::Int(0))),
        other => Ok(other),
    }
}
