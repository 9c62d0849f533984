//! More byte and string functions: span searches, copies returning the end, BSD names,
//! case-insensitive comparison.

use crate::error::Failure;
use crate::memory::Fragment;
use crate::natives::{arg, arg_val};
use crate::natives::{Access, NativeResult, Natives, Visibility};
use crate::value::Val;

fn ret(v: u64) -> Result<NativeResult, Failure> {
    Ok(NativeResult::Return(Val::Int(v as u128)))
}

/// A pointer result: `base + off` with provenance, or NULL.
fn ret_at(base: &Val, off: Option<usize>) -> Result<NativeResult, Failure> {
    Ok(NativeResult::Return(match (off, base) {
        (None, _) => Val::Int(0),
        (Some(o), Val::Ptr(p)) => Val::Ptr(p + o as u64),
        (Some(o), other) => Val::Int((other.as_u64() + o as u64) as u128),
    }))
}

/// The first argument as passed (a pointer keeps its provenance).
fn first(a: &[Val]) -> Result<Val, Failure> {
    arg_val(a, 0)
}

fn sign(o: std::cmp::Ordering) -> u64 {
    match o {
        std::cmp::Ordering::Less => (-1i32) as u32 as u64,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    }
}

pub(crate) fn register(n: &mut Natives) {
    n.add("strspn", Visibility::IfShared2(0, 1), |cx, a| {
        let (s, set) = (cx.read_c_string(arg(a, 0)?)?, cx.read_c_string(arg(a, 1)?)?);
        ret(s.iter().take_while(|c| set.contains(c)).count() as u64)
    });
    n.add("strcspn", Visibility::IfShared2(0, 1), |cx, a| {
        let (s, set) = (cx.read_c_string(arg(a, 0)?)?, cx.read_c_string(arg(a, 1)?)?);
        ret(s.iter().take_while(|c| !set.contains(c)).count() as u64)
    });
    n.add("strpbrk", Visibility::IfShared2(0, 1), |cx, a| {
        let (s, set) = (cx.read_c_string(arg(a, 0)?)?, cx.read_c_string(arg(a, 1)?)?);
        ret_at(&first(a)?, s.iter().position(|c| set.contains(c)))
    });
    n.add("memrchr", Visibility::IfShared(0), |cx, a| {
        let (c, len) = (arg(a, 1)? as u8, arg(a, 2)?);
        let p = arg(a, 0)?;
        let b = cx.read_bytes_unchecked(p, len)?;
        let found = b.iter().rposition(|&x| x == c);
        // The bytes from the match to the end decide the result.
        let from = found.map_or(0, |i| i as u64);
        cx.require_defined(p + from, len - from)?;
        ret_at(&first(a)?, found)
    });
    n.add("stpcpy", Visibility::IfShared2(0, 1), |cx, a| {
        let mut s = cx.read_c_string(arg(a, 1)?)?;
        let len = s.len();
        s.push(0);
        cx.write_fragment(arg(a, 0)?, &Fragment::from_bytes(s))?;
        ret_at(&first(a)?, Some(len))
    });
    n.add("bzero", Visibility::IfShared(0), |cx, a| {
        let (d, len) = (arg(a, 0)?, arg(a, 1)?);
        // Checked before the bytes are built: `len` may be huge.
        cx.check(d, len, Access::Write)?;
        cx.write_fragment(d, &Fragment::from_bytes(vec![0; len as usize]))?;
        ret(0)
    });
    n.add("bcmp", Visibility::IfShared2(0, 1), |cx, a| {
        let len = arg(a, 2)?;
        let (p, q) = (arg(a, 0)?, arg(a, 1)?);
        let (x, y) = (
            cx.read_bytes_unchecked(p, len)?,
            cx.read_bytes_unchecked(q, len)?,
        );
        let decided = x
            .iter()
            .zip(&y)
            .position(|(u, v)| u != v)
            .map_or(len, |i| i as u64 + 1);
        cx.require_defined(p, decided)?;
        cx.require_defined(q, decided)?;
        ret((x != y) as u64)
    });
    n.add("strcasecmp", Visibility::IfShared2(0, 1), |cx, a| {
        let x = cx.read_c_string(arg(a, 0)?)?.to_ascii_lowercase();
        let y = cx.read_c_string(arg(a, 1)?)?.to_ascii_lowercase();
        ret(sign(x.cmp(&y)))
    });
    n.add("strncasecmp", Visibility::IfShared2(0, 1), |cx, a| {
        let n = arg(a, 2)?;
        let x = cx.read_c_string_max(arg(a, 0)?, n)?.to_ascii_lowercase();
        let y = cx.read_c_string_max(arg(a, 1)?, n)?.to_ascii_lowercase();
        ret(sign(x.cmp(&y)))
    });
}
