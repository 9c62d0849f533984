//! <math.h>: the common double and float functions, computed with Rust's (IEEE) versions.
//! They are pure: no errno, no floating-point environment.

use crate::error::Failure;
use crate::natives::{arg_val, NativeResult, Natives, Visibility};
use crate::value::Val;

fn f64_arg(a: &[Val], i: usize) -> Result<f64, Failure> {
    Ok(match arg_val(a, i)? {
        Val::F64(b) => f64::from_bits(b),
        Val::F32(b) => f32::from_bits(b) as f64,
        v => f64::from_bits(v.as_u64()),
    })
}

fn f32_arg(a: &[Val], i: usize) -> Result<f32, Failure> {
    Ok(match arg_val(a, i)? {
        Val::F32(b) => f32::from_bits(b),
        Val::F64(b) => f64::from_bits(b) as f32,
        v => f32::from_bits(v.as_u64() as u32),
    })
}

fn ret64(v: f64) -> Result<NativeResult, Failure> {
    Ok(NativeResult::Return(Val::F64(v.to_bits())))
}

fn ret32(v: f32) -> Result<NativeResult, Failure> {
    Ok(NativeResult::Return(Val::F32(v.to_bits())))
}

type Unary = (&'static str, &'static str, fn(f64) -> f64);
type Binary = (&'static str, &'static str, fn(f64, f64) -> f64);

const UNARY: &[Unary] = &[
    ("sqrt", "sqrtf", f64::sqrt),
    ("fabs", "fabsf", f64::abs),
    ("floor", "floorf", f64::floor),
    ("ceil", "ceilf", f64::ceil),
    ("round", "roundf", f64::round),
    ("trunc", "truncf", f64::trunc),
    ("exp", "expf", f64::exp),
    ("exp2", "exp2f", f64::exp2),
    ("log", "logf", f64::ln),
    ("log2", "log2f", f64::log2),
    ("log10", "log10f", f64::log10),
    ("sin", "sinf", f64::sin),
    ("cos", "cosf", f64::cos),
    ("tan", "tanf", f64::tan),
    ("asin", "asinf", f64::asin),
    ("acos", "acosf", f64::acos),
    ("atan", "atanf", f64::atan),
    ("sinh", "sinhf", f64::sinh),
    ("cosh", "coshf", f64::cosh),
    ("tanh", "tanhf", f64::tanh),
    ("cbrt", "cbrtf", f64::cbrt),
];

const BINARY: &[Binary] = &[
    ("pow", "powf", f64::powf),
    ("atan2", "atan2f", f64::atan2),
    ("fmod", "fmodf", |x, y| x % y),
    ("fmin", "fminf", f64::min),
    ("fmax", "fmaxf", f64::max),
    ("hypot", "hypotf", f64::hypot),
    ("copysign", "copysignf", f64::copysign),
];

pub(crate) fn register(n: &mut Natives) {
    for &(name, name_f, f) in UNARY {
        n.add(name, Visibility::Never, move |_, a| {
            ret64(f(f64_arg(a, 0)?))
        });
        n.add(name_f, Visibility::Never, move |_, a| {
            ret32(f(f32_arg(a, 0)? as f64) as f32)
        });
    }
    for &(name, name_f, f) in BINARY {
        n.add(name, Visibility::Never, move |_, a| {
            ret64(f(f64_arg(a, 0)?, f64_arg(a, 1)?))
        });
        n.add(name_f, Visibility::Never, move |_, a| {
            ret32(f(f32_arg(a, 0)? as f64, f32_arg(a, 1)? as f64) as f32)
        });
    }
}
