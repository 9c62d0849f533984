//! strtok and strtok_r. strtok's position is process-wide hidden state (as in glibc), so
//! threads sharing it race, and calling it is a scheduling point.

use super::hidden::{get, set, STRTOK_NEXT};
use crate::error::Failure;
use crate::natives::{arg, arg_val};
use crate::natives::{NativeCx, NativeResult, Natives, Visibility};
use crate::value::Val;

pub(crate) fn register(n: &mut Natives) {
    n.add("strtok", Visibility::Always, |cx, a| {
        let start = match arg_val(a, 0)? {
            s if s.as_u64() != 0 => s,
            _ => get(cx, true, STRTOK_NEXT).unwrap_or(Val::Int(0)),
        };
        let (token, next) = tokenize(cx, start, arg(a, 1)?)?;
        set(cx, true, STRTOK_NEXT, next);
        Ok(NativeResult::Return(token))
    });
    n.add("strtok_r", Visibility::IfShared2(0, 2), |cx, a| {
        let save = arg(a, 2)?;
        let start = match arg_val(a, 0)? {
            s if s.as_u64() != 0 => s,
            _ => cx.read_ptr(save)?,
        };
        let (token, next) = tokenize(cx, start, arg(a, 1)?)?;
        cx.write_ptr(save, &next)?;
        Ok(NativeResult::Return(token))
    });
}

fn offset(p: &Val, by: usize) -> Val {
    match p {
        Val::Ptr(q) => Val::Ptr(q + by as u64),
        other => Val::Int((other.as_u64() + by as u64) as u128),
    }
}

/// Find the next token at `start`: cut it with a NUL and return (token, where to go on).
fn tokenize(cx: &mut NativeCx<'_>, start: Val, delims: u64) -> Result<(Val, Val), Failure> {
    if start.as_u64() == 0 {
        return Ok((Val::Int(0), Val::Int(0)));
    }
    let s = cx.read_c_string(start.as_u64())?;
    let set = cx.read_c_string(delims)?;
    let Some(begin) = s.iter().position(|c| !set.contains(c)) else {
        return Ok((Val::Int(0), Val::Int(0)));
    };
    let token = offset(&start, begin);
    match s[begin..].iter().position(|c| set.contains(c)) {
        Some(len) => {
            cx.write_int(token.as_u64() + len as u64, 1, 0)?;
            Ok((token, offset(&start, begin + len + 1)))
        }
        None => Ok((token, Val::Int(0))),
    }
}
