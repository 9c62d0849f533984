//! Output: printf, fprintf, snprintf, sprintf, puts, putchar, fputs, fflush. Output is
//! captured per path and shown with counterexamples.

use super::printf::{format, StringSource};
use crate::error::Failure;
use crate::memory::Fragment;
use crate::natives::arg;
use crate::natives::{NativeCx, NativeResult, Natives, Pointee, Visibility};
use crate::value::Val;

impl StringSource for NativeCx<'_> {
    fn c_string(&mut self, ptr: u64) -> Result<Vec<u8>, Failure> {
        self.read_c_string(ptr)
    }
    fn store_count(&mut self, ptr: u64, count: u64, bytes: u64) -> Result<(), Failure> {
        self.write_int(ptr, bytes, count)
    }
}

/// A `FILE *` argument: the model does not look inside a stream, but glibc does, so it
/// must point to a live object.
const STREAM: Pointee = Pointee::read(1);

pub(crate) fn register(n: &mut Natives) {
    n.add("printf", Visibility::Output, |cx, a| {
        print_formatted(cx, arg(a, 0)?, &a[1.min(a.len())..])
    });
    n.add("fprintf", Visibility::Output, |cx, a| {
        cx.ptr_arg(a, 0, STREAM)?;
        print_formatted(cx, arg(a, 1)?, &a[2.min(a.len())..])
    });
    n.add("dprintf", Visibility::Output, |cx, a| {
        print_formatted(cx, arg(a, 1)?, &a[2.min(a.len())..])
    });
    n.add("sprintf", Visibility::IfShared(0), |cx, a| {
        let out = fmt(cx, arg(a, 1)?, &a[2.min(a.len())..])?;
        write_string(cx, arg(a, 0)?, &out, u64::MAX)
    });
    n.add("snprintf", Visibility::IfShared(0), |cx, a| {
        let out = fmt(cx, arg(a, 2)?, &a[3.min(a.len())..])?;
        write_string(cx, arg(a, 0)?, &out, arg(a, 1)?)
    });
    n.add("puts", Visibility::Output, |cx, a| {
        let mut s = cx.read_c_string(arg(a, 0)?)?;
        s.push(b'\n');
        cx.print(&s);
        Ok(NativeResult::Return(Val::Int(s.len() as u128)))
    });
    n.add("fputs", Visibility::Output, |cx, a| {
        cx.ptr_arg(a, 1, STREAM)?;
        let s = cx.read_c_string(arg(a, 0)?)?;
        cx.print(&s);
        Ok(NativeResult::Return(Val::Int(s.len() as u128)))
    });
    n.add("putchar", Visibility::Output, |cx, a| {
        let c = arg(a, 0)? as u8;
        cx.print(&[c]);
        Ok(NativeResult::Return(Val::Int(c as u128)))
    });
    n.add("fputc", Visibility::Output, |cx, a| {
        cx.ptr_arg(a, 1, STREAM)?;
        let c = arg(a, 0)? as u8;
        cx.print(&[c]);
        Ok(NativeResult::Return(Val::Int(c as u128)))
    });
    n.alias("putc", "fputc");
    n.add("fwrite", Visibility::Output, |cx, a| {
        cx.ptr_arg(a, 3, STREAM)?;
        let len = arg(a, 1)?.saturating_mul(arg(a, 2)?);
        let s = cx.read_bytes(arg(a, 0)?, len)?;
        cx.print(&s);
        Ok(NativeResult::Return(Val::Int(arg(a, 2)? as u128)))
    });
    // fflush(NULL) flushes every stream.
    n.add("fflush", Visibility::Never, |cx, a| {
        cx.opt_ptr_arg(a, 0, STREAM)?;
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.add("setvbuf", Visibility::Never, |cx, a| {
        cx.ptr_arg(a, 0, STREAM)?;
        Ok(NativeResult::Return(Val::Int(0)))
    });
}

fn fmt(cx: &mut NativeCx<'_>, fmt_ptr: u64, args: &[Val]) -> Result<Vec<u8>, Failure> {
    let f = cx.read_c_string(fmt_ptr)?;
    format(&f, args, cx)
}

fn print_formatted(
    cx: &mut NativeCx<'_>,
    fmt_ptr: u64,
    args: &[Val],
) -> Result<NativeResult, Failure> {
    let out = fmt(cx, fmt_ptr, args)?;
    cx.print(&out);
    Ok(NativeResult::Return(Val::Int(out.len() as u128)))
}

/// Store `s` NUL-terminated into at most `cap` bytes; return the untruncated length.
fn write_string(
    cx: &mut NativeCx<'_>,
    dst: u64,
    s: &[u8],
    cap: u64,
) -> Result<NativeResult, Failure> {
    if cap > 0 {
        let n = (s.len() as u64).min(cap - 1) as usize;
        let mut bytes = s[..n].to_vec();
        bytes.push(0);
        cx.write_fragment(dst, &Fragment::from_bytes(bytes))?;
    }
    Ok(NativeResult::Return(Val::Int(s.len() as u128)))
}
