//! Termination: assert, abort, exit, atexit.

use crate::error::{ErrorKind, Failure};
use crate::natives::{arg, arg_val, NativeCx, NativeResult, Natives, Visibility};
use crate::value::Val;

pub(crate) fn register(n: &mut Natives) {
    n.add("__assert_fail", Visibility::Never, assert_fail);
    n.add("__assert_perror_fail", Visibility::Never, assert_fail);
    // Ending the process is a scheduling point: other threads may run first.
    n.add("abort", Visibility::Always, |_, _| {
        Err(Failure::new(ErrorKind::Abort, "abort() called"))
    });
    n.add("exit", Visibility::Always, exit);
    // _exit/_Exit end the process without running atexit handlers; quick_exit runs
    // only at_quick_exit handlers, which are not modelled (none can be registered).
    n.add("_exit", Visibility::Always, |_, a| {
        Ok(NativeResult::Exit(
            a.first().map(|v| v.bits() as i32).unwrap_or(0),
        ))
    });
    n.alias("_Exit", "_exit");
    n.alias("quick_exit", "_exit");
    n.add("atexit", Visibility::Never, atexit);
    n.add("__cxa_atexit", Visibility::Never, |_, _| {
        Ok(NativeResult::Return(Val::Int(0)))
    });
}

fn assert_fail(cx: &mut NativeCx<'_>, args: &[Val]) -> Result<NativeResult, Failure> {
    let cond = args
        .first()
        .and_then(|p| cx.read_c_string(p.as_u64()).ok())
        .unwrap_or_default();
    let func = args
        .get(3)
        .and_then(|p| cx.read_c_string(p.as_u64()).ok())
        .unwrap_or_default();
    let cond = String::from_utf8_lossy(&cond);
    let func = String::from_utf8_lossy(&func);
    let msg = if func.is_empty() {
        format!("assertion `{cond}` failed")
    } else {
        format!("assertion `{cond}` failed in {func}")
    };
    Err(Failure::new(ErrorKind::Assertion, msg))
}

/// exit(): run atexit handlers (last registered first), then end the process.
fn exit(cx: &mut NativeCx<'_>, args: &[Val]) -> Result<NativeResult, Failure> {
    let code = arg_val(args, 0)?.bits() as i32;
    let _ = cx.callback_result();
    if let Some(f) = cx.state.atexit.pop() {
        cx.set_phase(1);
        return Ok(NativeResult::CallBack {
            func: f,
            args: vec![],
        });
    }
    Ok(NativeResult::Exit(code))
}

fn atexit(cx: &mut NativeCx<'_>, args: &[Val]) -> Result<NativeResult, Failure> {
    let f = arg(args, 0)?;
    cx.state.atexit.push(f);
    Ok(NativeResult::Return(Val::Int(0)))
}
