//! Time and process identity. Time is not modelled: sleeps return at once (but are
//! scheduling points, since programs sleep to let other threads run), clocks read 0.

use crate::error::Failure;
use crate::memory::Fragment;
use crate::natives::{NativeResult, Natives, Pointee, Visibility};
use crate::value::Val;

/// What getpid() reports.
const PID: u128 = 1;
/// A `struct timespec` or `struct timeval` result: 16 bytes.
const TIMESPEC: Pointee = Pointee::write(16);

fn zero() -> Result<NativeResult, Failure> {
    Ok(NativeResult::Return(Val::Int(0)))
}

pub(crate) fn register(n: &mut Natives) {
    // Sleeps are cancellation points.
    n.add("sleep", Visibility::Always, |cx, _| {
        Ok(crate::pthread::cancel::point(cx)?.unwrap_or(NativeResult::Return(Val::Int(0))))
    });
    n.alias("usleep", "sleep");
    n.alias("nanosleep", "sleep");
    n.alias("clock_nanosleep", "sleep");
    // std::chrono's clocks (libstdc++; a time_point is one 64-bit count) read 0 too.
    n.add(
        "_ZNSt6chrono3_V212steady_clock3nowEv",
        Visibility::Never,
        |_, _| zero(),
    );
    n.alias(
        "_ZNSt6chrono3_V212system_clock3nowEv",
        "_ZNSt6chrono3_V212steady_clock3nowEv",
    );
    n.add("time", Visibility::IfShared(0), |cx, a| {
        let t = cx.opt_ptr_arg(a, 0, Pointee::write(8))?;
        if t != 0 {
            cx.write_int(t, 8, 0)?;
        }
        zero()
    });
    // clock_gettime(clock, struct timespec*) and gettimeofday(struct timeval*, tz).
    n.add("clock_gettime", Visibility::IfShared(1), |cx, a| {
        let ts = cx.ptr_arg(a, 1, TIMESPEC)?;
        cx.write_fragment(ts, &Fragment::from_bytes(vec![0; 16]))?;
        zero()
    });
    n.add("gettimeofday", Visibility::IfShared(0), |cx, a| {
        let tv = cx.opt_ptr_arg(a, 0, TIMESPEC)?;
        if tv != 0 {
            cx.write_fragment(tv, &Fragment::from_bytes(vec![0; 16]))?;
        }
        zero()
    });
    n.add("clock", Visibility::Never, |_, _| zero());
    n.add("getpid", Visibility::Never, |_, _| {
        Ok(NativeResult::Return(Val::Int(PID)))
    });
}
