//! std::thread's out-of-line libstdc++ members, and std::this_thread.
//!
//! A `std::thread` is its native handle (8 bytes, our pthread_t: a pointer to the thread's
//! handle object, 0 = not joinable). `_M_start_thread(this, unique_ptr<_State>*, fn)` takes ownership of the
//! heap `_State` (it nulls the caller's unique_ptr, as libstdc++ does, so the caller's
//! unique_ptr destructor does not free it) and starts a thread directly at the state's
//! virtual `_M_run(this)`: vtable slot 2 (slots 0 and 1 are the complete and deleting
//! destructors; checked against clang-19's output at -O0 and -O2). The `_State` is not
//! deleted when the thread ends: it leaks, which the checker does not report.

use crate::error::{ErrorKind, Failure};
use crate::natives::{NativeCx, NativeResult, Natives, Pointee, Visibility};
use crate::pthread::thread as pthread;
use crate::value::Val;

/// Byte offset of `_M_run` from the vtable pointer stored in a `_State`.
const M_RUN_SLOT: u64 = 2 * 8;
/// What `std::thread::hardware_concurrency()` reports (the modelled machine's cores).
const HARDWARE_CONCURRENCY: u128 = 2;
/// A `std::thread` (its handle) or the `unique_ptr<_State>` passed to start it: 8 bytes.
const THREAD: Pointee = Pointee::write(8);

pub(crate) fn register(n: &mut Natives) {
    n.add(
        "_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE",
        Visibility::Always,
        start,
    );
    n.add("_ZNSt6thread4joinEv", Visibility::Always, join);
    n.add("_ZNSt6thread6detachEv", Visibility::Always, detach);
    n.add("_ZNSt6thread6_StateD2Ev", Visibility::Never, |_, _| {
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.alias("_ZNSt6thread6_StateD1Ev", "_ZNSt6thread6_StateD2Ev");
    n.add(
        "_ZNSt6thread20hardware_concurrencyEv",
        Visibility::Never,
        |_, _| Ok(NativeResult::Return(Val::Int(HARDWARE_CONCURRENCY))),
    );
    // std::this_thread::sleep_for(seconds, nanoseconds): time is not modelled.
    n.add(
        "_ZNSt11this_thread11__sleep_forENSt6chrono8durationIlSt5ratioILl1ELl1EEEENS1_IlS2_ILl1ELl1000000000EEEE",
        Visibility::Always,
        |_, _| Ok(NativeResult::Return(Val::Int(0))),
    );
}

fn start(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    let (this, owner) = (cx.ptr_arg(a, 0, THREAD)?, cx.ptr_arg(a, 1, THREAD)?);
    let state = cx.read_ptr(owner)?;
    if state.as_u64() == 0 {
        return Err(Failure::new(
            ErrorKind::NullDereference,
            "std::thread started with no callable state",
        ));
    }
    let vptr = cx.read_ptr(state.as_u64())?.as_u64();
    let run = cx.read_ptr(vptr + M_RUN_SLOT)?.as_u64();
    cx.write_ptr(owner, &Val::Int(0))?;
    let tid = cx.spawn(run, vec![state])?;
    let h = pthread::handle(cx.state, tid);
    cx.write_ptr(this, &h)?;
    Ok(NativeResult::Return(Val::Int(0)))
}

fn not_joinable(what: &str) -> Failure {
    // libstdc++ throws std::system_error(EINVAL); with -fno-exceptions that aborts.
    Failure::new(
        ErrorKind::Abort,
        format!("std::thread::{what} on a thread that is not joinable (std::system_error)"),
    )
}

fn join(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    let this = cx.ptr_arg(a, 0, THREAD)?;
    let h = cx.read_int(this, 8)?;
    if h == 0 {
        return Err(not_joinable("join"));
    }
    if h == pthread::handle(cx.state, cx.tid).as_u64() {
        // libstdc++ checks this itself and throws (EDEADLK).
        return Err(Failure::new(
            ErrorKind::Abort,
            "std::thread::join called by the thread itself (std::system_error)",
        ));
    }
    match pthread::join(cx, &[Val::Ptr(h), Val::Int(0)])? {
        NativeResult::Return(_) => {
            cx.write_int(this, 8, 0)?;
            Ok(NativeResult::Return(Val::Int(0)))
        }
        other => Ok(other),
    }
}

fn detach(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    let this = cx.ptr_arg(a, 0, THREAD)?;
    let h = cx.read_int(this, 8)?;
    if h == 0 {
        return Err(not_joinable("detach"));
    }
    pthread::detach(cx, &[Val::Ptr(h)])?;
    cx.write_int(this, 8, 0)?;
    Ok(NativeResult::Return(Val::Int(0)))
}
