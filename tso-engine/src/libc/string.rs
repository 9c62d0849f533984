//! Byte and string functions: mem*, str*, and a few conversions.

use super::malloc::MALLOC;
use crate::error::Failure;
use crate::memory::Fragment;
use crate::natives::arg;
use crate::natives::{Access, NativeCx, NativeResult, Natives, Visibility};
use crate::value::Val;
use std::cmp::Ordering;

fn ret(v: u64) -> Result<NativeResult, Failure> {
    Ok(NativeResult::Return(Val::Int(v as u128)))
}
fn ret_ptr(p: u64) -> Result<NativeResult, Failure> {
    Ok(NativeResult::Return(if p == 0 {
        Val::Int(0)
    } else {
        Val::Ptr(p)
    }))
}
fn cmp(o: Ordering) -> u64 {
    match o {
        Ordering::Less => (-1i32) as u32 as u64,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

pub(crate) fn register(n: &mut Natives) {
    register_memory(n);
    register_lengths_and_comparisons(n);
    register_copies(n);
    register_searches(n);
    register_duplicates(n);
    register_numbers(n);
}

/// `mem*`: copies, fills, comparisons and searches of byte ranges.
fn register_memory(n: &mut Natives) {
    n.add("memcpy", Visibility::IfShared2(0, 1), copy);
    n.alias("memmove", "memcpy");
    n.add("memset", Visibility::IfShared(0), |cx, a| {
        let (d, c, len) = (arg(a, 0)?, arg(a, 1)? as u8, arg(a, 2)?);
        // Checked before the bytes are built: `len` may be huge.
        cx.check(d, len, Access::Write)?;
        cx.write_fragment(d, &Fragment::from_bytes(vec![c; len as usize]))?;
        ret_ptr(d)
    });
    n.add("memcmp", Visibility::IfShared2(0, 1), |cx, a| {
        let (p, q, len) = (arg(a, 0)?, arg(a, 1)?, arg(a, 2)?);
        let (x, y) = (
            cx.read_bytes_unchecked(p, len)?,
            cx.read_bytes_unchecked(q, len)?,
        );
        // The bytes up to the first difference decide the result.
        let decided = x
            .iter()
            .zip(&y)
            .position(|(u, v)| u != v)
            .map_or(len, |i| i as u64 + 1);
        cx.require_defined(p, decided)?;
        cx.require_defined(q, decided)?;
        ret(cmp(x.cmp(&y)))
    });
    n.add("memchr", Visibility::IfShared(0), |cx, a| {
        let (p, c, len) = (arg(a, 0)?, arg(a, 1)? as u8, arg(a, 2)?);
        let b = cx.read_bytes_unchecked(p, len)?;
        let found = b.iter().position(|&x| x == c);
        // The bytes up to the match decide the result.
        cx.require_defined(p, found.map_or(len, |i| i as u64 + 1))?;
        ret_ptr(found.map(|i| p + i as u64).unwrap_or(0))
    });
}

/// `strlen`, `strnlen`, `strcmp`, `strncmp`.
fn register_lengths_and_comparisons(n: &mut Natives) {
    n.add("strlen", Visibility::IfShared(0), |cx, a| {
        ret(cx.read_c_string(arg(a, 0)?)?.len() as u64)
    });
    n.add("strnlen", Visibility::IfShared(0), |cx, a| {
        let s = cx.read_c_string_max(arg(a, 0)?, arg(a, 1)?)?;
        ret(s.len() as u64)
    });
    n.add("strcmp", Visibility::IfShared2(0, 1), |cx, a| {
        let (x, y) = (cx.read_c_string(arg(a, 0)?)?, cx.read_c_string(arg(a, 1)?)?);
        ret(cmp(x.cmp(&y)))
    });
    n.add("strncmp", Visibility::IfShared2(0, 1), |cx, a| {
        let n = arg(a, 2)?;
        let x = cx.read_c_string_max(arg(a, 0)?, n)?;
        let y = cx.read_c_string_max(arg(a, 1)?, n)?;
        ret(cmp(x.cmp(&y)))
    });
}

/// `strcpy`, `strncpy`, `strcat`, `strncat`.
fn register_copies(n: &mut Natives) {
    n.add("strcpy", Visibility::IfShared2(0, 1), |cx, a| {
        let mut s = cx.read_c_string(arg(a, 1)?)?;
        s.push(0);
        cx.write_fragment(arg(a, 0)?, &Fragment::from_bytes(s))?;
        ret_ptr(arg(a, 0)?)
    });
    n.add("strncpy", Visibility::IfShared2(0, 1), |cx, a| {
        let (d, n) = (arg(a, 0)?, arg(a, 2)?);
        // strncpy always writes n bytes (padding with NULs); checked before they are built.
        cx.check(d, n, Access::Write)?;
        let mut s = cx.read_c_string_max(arg(a, 1)?, n)?;
        s.resize(n as usize, 0);
        cx.write_fragment(d, &Fragment::from_bytes(s))?;
        ret_ptr(d)
    });
    n.add("strcat", Visibility::IfShared2(0, 1), |cx, a| {
        let d = arg(a, 0)?;
        let len = cx.read_c_string(d)?.len() as u64;
        let mut s = cx.read_c_string(arg(a, 1)?)?;
        s.push(0);
        cx.write_fragment(d + len, &Fragment::from_bytes(s))?;
        ret_ptr(d)
    });
    n.add("strncat", Visibility::IfShared2(0, 1), |cx, a| {
        let d = arg(a, 0)?;
        let len = cx.read_c_string(d)?.len() as u64;
        let mut s = cx.read_c_string_max(arg(a, 1)?, arg(a, 2)?)?;
        s.push(0);
        cx.write_fragment(d + len, &Fragment::from_bytes(s))?;
        ret_ptr(d)
    });
}

/// `strchr`, `strrchr`, `strstr`.
fn register_searches(n: &mut Natives) {
    n.add("strchr", Visibility::IfShared(0), |cx, a| {
        let (p, c) = (arg(a, 0)?, arg(a, 1)? as u8);
        let s = cx.read_c_string(p)?;
        if c == 0 {
            return ret_ptr(p + s.len() as u64);
        }
        ret_ptr(
            s.iter()
                .position(|&x| x == c)
                .map(|i| p + i as u64)
                .unwrap_or(0),
        )
    });
    n.add("strrchr", Visibility::IfShared(0), |cx, a| {
        let (p, c) = (arg(a, 0)?, arg(a, 1)? as u8);
        let s = cx.read_c_string(p)?;
        if c == 0 {
            return ret_ptr(p + s.len() as u64);
        }
        ret_ptr(
            s.iter()
                .rposition(|&x| x == c)
                .map(|i| p + i as u64)
                .unwrap_or(0),
        )
    });
    n.add("strstr", Visibility::IfShared2(0, 1), |cx, a| {
        let p = arg(a, 0)?;
        let (h, nd) = (cx.read_c_string(p)?, cx.read_c_string(arg(a, 1)?)?);
        if nd.is_empty() {
            return ret_ptr(p);
        }
        ret_ptr(
            h.windows(nd.len())
                .position(|w| w == nd.as_slice())
                .map(|i| p + i as u64)
                .unwrap_or(0),
        )
    });
}

/// `strdup`, `strndup`.
fn register_duplicates(n: &mut Natives) {
    n.add("strdup", Visibility::IfShared(0), |cx, a| {
        let mut s = cx.read_c_string(arg(a, 0)?)?;
        s.push(0);
        dup(cx, s)
    });
    n.add("strndup", Visibility::IfShared(0), |cx, a| {
        let mut s = cx.read_c_string_max(arg(a, 0)?, arg(a, 1)?)?;
        s.push(0);
        dup(cx, s)
    });
}

/// Conversions to integers and absolute values.
fn register_numbers(n: &mut Natives) {
    n.add("atoi", Visibility::IfShared(0), |cx, a| {
        let s = cx.read_c_string(arg(a, 0)?)?;
        ret(parse_int(&s, 10) as i32 as u32 as u64)
    });
    n.add("atol", Visibility::IfShared(0), |cx, a| {
        let s = cx.read_c_string(arg(a, 0)?)?;
        ret(parse_int(&s, 10) as u64)
    });
    n.alias("atoll", "atol");
    n.add("strtol", Visibility::IfShared(0), strtol);
    n.alias("strtoll", "strtol");
    n.alias("strtoul", "strtol");
    n.alias("strtoull", "strtol");
    n.add("abs", Visibility::Never, |_, a| {
        ret((arg(a, 0)? as i32).unsigned_abs() as u64)
    });
    n.add("labs", Visibility::Never, |_, a| {
        ret((arg(a, 0)? as i64).unsigned_abs())
    });
    n.alias("llabs", "labs");
}

fn copy(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    let (d, s, len) = (arg(a, 0)?, arg(a, 1)?, arg(a, 2)?);
    if len > 0 {
        let f = cx.read_fragment(s, len)?;
        cx.write_fragment(d, &f)?;
    }
    ret_ptr(d)
}

fn dup(cx: &mut NativeCx<'_>, s: Vec<u8>) -> Result<NativeResult, Failure> {
    let Some(p) = cx.allocate(s.len() as u64, MALLOC)? else {
        return ret_ptr(0);
    };
    cx.write_fragment(p, &Fragment::from_bytes(s))?;
    ret_ptr(p)
}

fn parse_int(s: &[u8], base: u32) -> i64 {
    let t = String::from_utf8_lossy(s);
    let t = t.trim_start();
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let digits: String = t.chars().take_while(|c| c.is_digit(base)).collect();
    let v = i64::from_str_radix(&digits, base).unwrap_or(0);
    if neg {
        -v
    } else {
        v
    }
}

fn strtol(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    let p = arg(a, 0)?;
    let s = cx.read_c_string(p)?;
    let mut base = arg(a, 2)? as u32;
    let text = String::from_utf8_lossy(&s).to_string();
    let trimmed = text.trim_start();
    let lead = text.len() - trimmed.len();
    let (sign_len, rest) = match trimmed.chars().next() {
        Some('-') | Some('+') => (1, &trimmed[1..]),
        _ => (0, trimmed),
    };
    let mut prefix = 0;
    if (base == 0 || base == 16) && (rest.starts_with("0x") || rest.starts_with("0X")) {
        base = 16;
        prefix = 2;
    } else if base == 0 && rest.starts_with('0') {
        base = 8;
    } else if base == 0 {
        base = 10;
    }
    let digits: String = rest[prefix..]
        .chars()
        .take_while(|c| c.is_digit(base))
        .collect();
    let end = if digits.is_empty() {
        0
    } else {
        lead + sign_len + prefix + digits.len()
    };
    let mut v = i64::from_str_radix(&digits, base).unwrap_or(0);
    if trimmed.starts_with('-') {
        v = -v;
    }
    let endp = arg(a, 1)?;
    if endp != 0 {
        cx.write_ptr(endp, &Val::Ptr(p + end as u64))?;
    }
    ret(v as u64)
}
