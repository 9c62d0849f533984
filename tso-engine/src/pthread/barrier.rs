//! pthread_barrier_*: the last thread to arrive releases all others.
//!
//! State lives in the `pthread_barrier_t` bytes (32 on x86-64): offset 0 the count given
//! to init, 4 how many threads have arrived in the current round, 8 the mask of threads
//! still waiting. Releasing clears the mask, so a released thread that has not run yet
//! cannot be confused with one waiting in the next round.

use super::{check_only, thread_bit, BARRIER, BARRIERATTR, BARRIERATTR_READ};
use crate::error::{ErrorKind, Failure};
use crate::natives::arg;
use crate::natives::{NativeCx, NativeResult, Natives, Visibility};
use crate::value::Val;

const COUNT: u64 = 0;
const ARRIVED: u64 = 4;
const WAITING: u64 = 8;
const EINVAL: u128 = 22;
/// PTHREAD_BARRIER_SERIAL_THREAD (-1), as the int the call returns.
const SERIAL_THREAD: u128 = u32::MAX as u128;
/// Race detection: each arrival releases to `b + ARRIVALS_KEY`; the last arrival
/// acquires that and releases it to `b + WAKE_KEY + t` for each waiter `t`, which
/// acquires it as it leaves. Per-waiter keys keep the next round's arrivals out.
const ARRIVALS_KEY: u64 = 1 << 16;
const WAKE_KEY: u64 = 1 << 17;

pub(crate) fn register(n: &mut Natives) {
    n.add("pthread_barrier_init", Visibility::IfShared(0), |cx, a| {
        let b = cx.ptr_arg(a, 0, BARRIER)?;
        cx.opt_ptr_arg(a, 1, BARRIERATTR_READ)?;
        let count = arg(a, 2)? as u32;
        if count == 0 {
            return Ok(NativeResult::Return(Val::Int(EINVAL)));
        }
        cx.write_int(b + COUNT, 4, count as u64)?;
        cx.write_int(b + ARRIVED, 4, 0)?;
        cx.write_int(b + WAITING, 8, 0)?;
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.add("pthread_barrier_wait", Visibility::Always, |cx, a| {
        wait(cx, cx.ptr_arg(a, 0, BARRIER)?)
    });
    n.add(
        "pthread_barrier_destroy",
        Visibility::IfShared(0),
        |cx, a| {
            let b = cx.ptr_arg(a, 0, BARRIER)?;
            if cx.read_int(b + ARRIVED, 4)? != 0 || cx.read_int(b + WAITING, 8)? != 0 {
                return Err(Failure::new(
                    ErrorKind::PthreadMisuse,
                    "destroy of a barrier threads are waiting on",
                ));
            }
            cx.write_int(b + COUNT, 4, 0)?;
            Ok(NativeResult::Return(Val::Int(0)))
        },
    );
    n.add(
        "pthread_barrierattr_init",
        Visibility::Never,
        check_only(BARRIERATTR),
    );
    n.alias("pthread_barrierattr_destroy", "pthread_barrierattr_init");
    n.alias("pthread_barrierattr_setpshared", "pthread_barrierattr_init");
}

/// The mask of threads waiting at barrier `b` in a state.
pub(crate) fn waiting_in(st: &crate::state::State, b: u64) -> Option<u64> {
    super::peek(st, b + WAITING, 8)
}

fn wait(cx: &mut NativeCx<'_>, b: u64) -> Result<NativeResult, Failure> {
    let me = thread_bit(cx.tid)?;
    let waiting = cx.read_int(b + WAITING, 8)?;
    if cx.phase() == 1 {
        if waiting & me != 0 {
            return Ok(NativeResult::Block);
        }
        cx.race_acquire(b + WAKE_KEY + cx.tid as u64);
        return Ok(NativeResult::Return(Val::Int(0)));
    }
    let count = cx.read_int(b + COUNT, 4)?;
    if count == 0 {
        return Err(Failure::new(
            ErrorKind::PthreadMisuse,
            "wait on a barrier that is not initialised",
        ));
    }
    let arrived = cx.read_int(b + ARRIVED, 4)? + 1;
    cx.race_release(b + ARRIVALS_KEY);
    if arrived >= count {
        cx.race_acquire(b + ARRIVALS_KEY);
        for t in super::threads_in(waiting) {
            cx.race_release(b + WAKE_KEY + t as u64);
        }
        cx.write_int(b + ARRIVED, 4, 0)?;
        cx.write_int(b + WAITING, 8, 0)?;
        cx.note(|_, _| "last arrival releases the barrier".to_string());
        return Ok(NativeResult::Return(Val::Int(SERIAL_THREAD)));
    }
    cx.write_int(b + ARRIVED, 4, arrived)?;
    crate::pthread::stores_thread_ids(cx);
    cx.write_int(b + WAITING, 8, waiting | me)?;
    cx.set_phase(1);
    Ok(NativeResult::Yield)
}
