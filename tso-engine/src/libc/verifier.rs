//! SV-COMP verifier functions and `tso_choose`.

use crate::error::{ErrorKind, Failure};
use crate::natives::{arg_val, NativeCx, NativeResult, Natives, Visibility};
use crate::value::Val;

pub(crate) fn register(n: &mut Natives) {
    n.add("tso_choose", Visibility::Choice, |cx, a| {
        let k = arg_val(a, 0)?.bits() as i32;
        if k <= 0 {
            return Err(Failure::new(
                ErrorKind::Assertion,
                format!("tso_choose({k}): the argument must be positive"),
            ));
        }
        Ok(NativeResult::Return(
            Val::Int(cx.choose(k as usize) as u128),
        ))
    });
    n.add("__VERIFIER_nondet_bool", Visibility::Choice, |cx, _| {
        Ok(NativeResult::Return(Val::Int(cx.choose(2) as u128)))
    });
    n.add("__VERIFIER_nondet_char", Visibility::Choice, |cx, _| {
        Ok(NativeResult::Return(Val::Int(
            (cx.choose(256) as u8) as u128,
        )))
    });
    n.alias("__VERIFIER_nondet_uchar", "__VERIFIER_nondet_char");
    n.add("__VERIFIER_error", Visibility::Never, |_, _| {
        Err(Failure::new(
            ErrorKind::Assertion,
            "__VERIFIER_error() reached",
        ))
    });
    n.add("reach_error", Visibility::Never, |_, _| {
        Err(Failure::new(ErrorKind::Assertion, "reach_error() reached"))
    });
    n.add("__VERIFIER_assume", Visibility::Never, assume);
    // Atomic sections act like locked instructions: fenced at both ends under TSO.
    n.add("__VERIFIER_atomic_begin", Visibility::Always, |cx, _| {
        cx.fence()?;
        cx.state.atomic_owner = Some(cx.tid);
        // Race detection: sections are ordered like the critical sections of one lock.
        cx.race_acquire(0);
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.add("__VERIFIER_atomic_end", Visibility::Never, |cx, _| {
        if cx.state.atomic_owner == Some(cx.tid) {
            cx.fence()?;
            cx.state.atomic_owner = None;
            cx.race_release(0);
        }
        Ok(NativeResult::Return(Val::Int(0)))
    });
    for name in [
        "__VERIFIER_nondet_int",
        "__VERIFIER_nondet_uint",
        "__VERIFIER_nondet_long",
        "__VERIFIER_nondet_ulong",
        "__VERIFIER_nondet_short",
        "__VERIFIER_nondet_ushort",
        "__VERIFIER_nondet_pointer",
        "__VERIFIER_nondet_float",
        "__VERIFIER_nondet_double",
        "__VERIFIER_nondet_size_t",
        "__VERIFIER_nondet_loff_t",
    ] {
        n.add(name, Visibility::Never, |_, _| {
            Err(Failure::unsupported("unsupported: data nondeterminism (__VERIFIER_nondet_* wider than a char) is not supported; use tso_choose(n)"))
        });
    }
}

/// An assumption that does not hold cuts the path: the thread can never proceed.
fn assume(_cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    if arg_val(a, 0)?.is_true() {
        Ok(NativeResult::Return(Val::Int(0)))
    } else {
        Ok(NativeResult::Prune)
    }
}
