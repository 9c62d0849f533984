//! LLVM intrinsics.

use super::Machine;
use crate::error::{ErrorKind, Failure};
use crate::ir::{Intrinsic, MemOrder};
use crate::memory::{Fragment, ObjKind, Object};
use crate::state::{State, ThreadId};
use crate::value::{make_ptr, mask, ptr_parts, sext, Val};
use std::sync::Arc;

pub(super) fn call(
    m: &Machine<'_>,
    st: &mut State,
    tid: ThreadId,
    i: &Intrinsic,
    args: &[Val],
) -> Result<Val, Failure> {
    let bits = intrinsic_bits(m, st, tid);
    // Arithmetic intrinsics on vectors (what the vectoriser emits) apply lane by lane.
    if lanewise(i) && args.iter().any(|a| matches!(a, Val::Agg(_))) {
        let lanes = args.iter().map(|a| a.lanes().len()).max().unwrap_or(0);
        let mut out = Vec::with_capacity(lanes);
        for l in 0..lanes {
            let lane_args: Vec<Val> = args
                .iter()
                .map(|a| match a {
                    Val::Agg(v) => v.get(l).cloned().unwrap_or_default(),
                    scalar => scalar.clone(),
                })
                .collect();
            out.push(scalar(m, st, tid, i, &lane_args, bits)?);
        }
        return Ok(Val::Agg(out.into()));
    }
    scalar(m, st, tid, i, args, bits)
}

fn lanewise(i: &Intrinsic) -> bool {
    use Intrinsic::*;
    matches!(
        i,
        UMin | UMax
            | SMin
            | SMax
            | Abs
            | Ctpop
            | Ctlz
            | Cttz
            | Bswap
            | Bitreverse
            | Fshl
            | Fshr
            | SAddSat
            | UAddSat
            | SSubSat
            | USubSat
            | SShlSat
            | UShlSat
            | Fabs
            | Sqrt
            | Floor
            | Ceil
            | Trunc
            | Round
            | Rint
            | Copysign
            | FMinNum
            | FMaxNum
            | Fma
            | FMulAdd
            | IsFpClass
    )
}

fn scalar(
    m: &Machine<'_>,
    st: &mut State,
    tid: ThreadId,
    i: &Intrinsic,
    args: &[Val],
    bits: u32,
) -> Result<Val, Failure> {
    use Intrinsic::*;
    let a = |k: usize| args.get(k).cloned().unwrap_or_default();
    if bits > 64 {
        if let Some(v) = integer_wide(i, args, bits) {
            return Ok(v);
        }
    }
    let mk = mask(bits);
    Ok(match i {
        NoOp => Val::Int(0),
        Expect => a(0),
        Memcpy | Memmove => {
            let (d, s, n) = (a(0).as_u64(), a(1).as_u64(), a(2).as_u64());
            copy_memory(m, st, tid, d, s, n, i == &Memcpy)?;
            Val::Int(0)
        }
        Memset => {
            let (d, v, n) = (a(0).as_u64(), a(1).bits() as u8, a(2).as_u64());
            set_memory(m, st, tid, d, v, n)?;
            Val::Int(0)
        }
        UMin => Val::Int((a(0).bits() & mk).min(a(1).bits() & mk)),
        UMax => Val::Int((a(0).bits() & mk).max(a(1).bits() & mk)),
        SMin => pick(
            sext(a(0).bits() & mk, bits) <= sext(a(1).bits() & mk, bits),
            a(0),
            a(1),
        ),
        SMax => pick(
            sext(a(0).bits() & mk, bits) >= sext(a(1).bits() & mk, bits),
            a(0),
            a(1),
        ),
        Abs => Val::Int(sext(a(0).bits() & mk, bits).unsigned_abs() & mk),
        Ctpop => Val::Int((a(0).bits() & mk).count_ones() as u128),
        Ctlz => Val::Int(((a(0).bits() & mk).leading_zeros() - (128 - bits)) as u128),
        Cttz => {
            let x = a(0).bits() & mk;
            Val::Int(if x == 0 {
                bits as u128
            } else {
                x.trailing_zeros() as u128
            })
        }
        Bswap => {
            let x = a(0).bits() & mk;
            Val::Int(x.swap_bytes() >> (128 - bits))
        }
        Bitreverse => Val::Int((a(0).bits() & mk).reverse_bits() >> (128 - bits)),
        Fshl | Fshr => funnel_shift(i == &Fshl, a(0).bits(), a(1).bits(), a(2).bits(), bits),
        SAddO | UAddO | SSubO | USubO | SMulO | UMulO => {
            with_overflow(i, a(0).bits(), a(1).bits(), bits)
        }
        UAddSat => Val::Int((a(0).bits() & mk).saturating_add(a(1).bits() & mk).min(mk)),
        USubSat => Val::Int((a(0).bits() & mk).saturating_sub(a(1).bits() & mk)),
        SAddSat | SSubSat => {
            signed_add_sub_saturating(i == &SAddSat, a(0).bits(), a(1).bits(), bits)
        }
        SShlSat | UShlSat => shl_saturating(i == &SShlSat, a(0).bits(), a(1).bits(), bits),
        StackSave => Val::Int(0),
        StackRestore => Val::Int(0),
        Trap => {
            return Err(Failure::new(
                ErrorKind::Abort,
                "trap (__builtin_trap or a failed check)",
            ))
        }
        VaStart => {
            va_start(st, tid, a(0).as_u64())?;
            Val::Int(0)
        }
        VaEnd => Val::Int(0),
        VaCopy => {
            let frag = st.memory.read_fragment(a(1).as_u64(), 24)?;
            st.memory.write_fragment(a(0).as_u64(), &frag)?;
            Val::Int(0)
        }
        ThreadLocalAddress => thread_local_address(m, st, tid, a(0)),
        Fabs | Sqrt | Floor | Ceil | Trunc | Round | Rint => round_float(i, &a(0)),
        Copysign => float_like(&a(0), a(0).f64().copysign(a(1).f64())),
        FMinNum => float_like(&a(0), a(0).f64().min(a(1).f64())),
        FMaxNum => float_like(&a(0), a(0).f64().max(a(1).f64())),
        Fma | FMulAdd => {
            let r = if matches!(a(0), Val::F32(_)) {
                (a(0).f32().mul_add(a(1).f32(), a(2).f32())) as f64
            } else {
                a(0).f64().mul_add(a(1).f64(), a(2).f64())
            };
            float_like(&a(0), r)
        }
        VecReduceAdd | VecReduceMul | VecReduceAnd | VecReduceOr | VecReduceXor | VecReduceUMax
        | VecReduceUMin | VecReduceSMax | VecReduceSMin => reduce(i, &a(0), bits),
        ObjectSize => {
            // Unknown: -1 for "maximum" mode (arg 1 false), 0 otherwise.
            if a(1).is_true() {
                Val::Int(0)
            } else {
                Val::Int(mk)
            }
        }
        IsConstant => Val::Int(0),
        IsFpClass => Val::bool(a(1).bits() as u32 & (1 << fp_class(&a(0))) != 0),
    })
}

/// `memcpy` (`exact`: overlapping ranges are an error) or `memmove` of `n` bytes from
/// `s` to `d`.
fn copy_memory(
    m: &Machine<'_>,
    st: &mut State,
    tid: ThreadId,
    d: u64,
    s: u64,
    n: u64,
    exact: bool,
) -> Result<(), Failure> {
    if n == 0 {
        return Ok(());
    }
    let frag = st.memory.read_fragment(s, n)?;
    if exact {
        let (od, oo) = ptr_parts(d);
        let (sd, so) = ptr_parts(s);
        // Identical ranges are allowed (LLVM emits them for `*a = *b` with a == b).
        if od == sd && oo != so && (oo as u64) < so as u64 + n && (so as u64) < oo as u64 + n {
            return Err(Failure::new(
                ErrorKind::OutOfBounds,
                "memcpy between overlapping ranges",
            ));
        }
    }
    // Undefined bytes copied keep their origin, so a use of the copy names the memory
    // that was never written (`read_fragment` gives no mask when every bit is defined).
    let origin = if frag.undef.is_empty() {
        None
    } else {
        st.memory
            .object_of(s)
            .and_then(|(_, o)| crate::definedness::Origin::of_range(o, ptr_parts(s).1, n as u32))
    };
    let shared = st.memory.is_shared(d);
    st.memory.write_fragment_from(d, &frag, origin)?;
    if shared {
        for p in frag.pointers().collect::<Vec<_>>() {
            st.share(ptr_parts(p).0);
        }
    }
    // A copy is a plain read of its source and a plain write of its target.
    m.race_access(st, tid, s, n, false, MemOrder::NotAtomic)?;
    m.race_access(st, tid, d, n, true, MemOrder::NotAtomic)
}

/// `memset`: `n` bytes of `v` at `d`.
fn set_memory(
    m: &Machine<'_>,
    st: &mut State,
    tid: ThreadId,
    d: u64,
    v: u8,
    n: u64,
) -> Result<(), Failure> {
    if n == 0 {
        return Ok(());
    }
    // Check the destination before building the bytes (n may be huge).
    st.memory.check(d, n, true)?;
    st.memory
        .write_fragment(d, &Fragment::from_bytes(vec![v; n as usize]))?;
    m.race_access(st, tid, d, n, true, MemOrder::NotAtomic)
}

/// `fshl` (`left`) or `fshr` on `bits`-wide `x:y` by `s` modulo `bits` (`bits <= 64`).
fn funnel_shift(left: bool, x: u128, y: u128, s: u128, bits: u32) -> Val {
    let mk = mask(bits);
    let (x, y, s) = (x & mk, y & mk, (s % bits as u128) as u32);
    let wide = (x << bits) | y; // bits <= 64 in practice
    let r = if left { (wide << s) >> bits } else { wide >> s };
    Val::Int(r & mk)
}

/// The `*.with.overflow` intrinsics: `{result, overflowed}`.
fn with_overflow(i: &Intrinsic, x: u128, y: u128, bits: u32) -> Val {
    use Intrinsic::*;
    let mk = mask(bits);
    let (x, y) = (x & mk, y & mk);
    let (sx, sy) = (sext(x, bits), sext(y, bits));
    let (r, of) = match i {
        UAddO => {
            let r = x.wrapping_add(y);
            (r & mk, r & mk < x)
        }
        USubO => (x.wrapping_sub(y) & mk, y > x),
        UMulO => {
            let r = x.checked_mul(y);
            (x.wrapping_mul(y) & mk, r.is_none_or(|r| r > mk))
        }
        SAddO => {
            let r = sx.wrapping_add(sy);
            (r as u128 & mk, sext(r as u128 & mk, bits) != r)
        }
        SSubO => {
            let r = sx.wrapping_sub(sy);
            (r as u128 & mk, sext(r as u128 & mk, bits) != r)
        }
        _ => {
            let r = sx.checked_mul(sy);
            let w = sx.wrapping_mul(sy);
            (
                w as u128 & mk,
                r.is_none_or(|r| sext(r as u128 & mk, bits) != r),
            )
        }
    };
    Val::Agg(Arc::from(vec![Val::Int(r), Val::bool(of)]))
}

/// `sadd.sat` (`add`) or `ssub.sat`.
fn signed_add_sub_saturating(add: bool, x: u128, y: u128, bits: u32) -> Val {
    let mk = mask(bits);
    let (x, y) = (sext(x & mk, bits), sext(y & mk, bits));
    let r = if add {
        x.saturating_add(y)
    } else {
        x.saturating_sub(y)
    };
    let max = (mk >> 1) as i128;
    let min = -max - 1;
    Val::Int(r.clamp(min, max) as u128 & mk)
}

/// `sshl.sat` (`signed`) or `ushl.sat`.
fn shl_saturating(signed: bool, x: u128, s: u128, bits: u32) -> Val {
    let mk = mask(bits);
    let (x, s) = (x & mk, s & mk);
    // The shift is exact when shifting back gives `x`; else the result saturates
    // (an amount of `bits` or more is poison: it saturates too unless x is 0).
    let back = |r: u128, s: u128| {
        if signed {
            (sext(r, bits) >> s) as u128 & mk
        } else {
            r >> s
        }
    };
    let r = (x << s.min(127)) & mk;
    if s < bits as u128 && back(r, s) == x {
        Val::Int(r)
    } else if x == 0 {
        Val::Int(0)
    } else if !signed {
        Val::Int(mk)
    } else if sext(x, bits) < 0 {
        Val::Int((mk >> 1) + 1)
    } else {
        Val::Int(mk >> 1)
    }
}

/// `va_start` on the x86-64 `va_list` at `list`.
fn va_start(st: &mut State, tid: ThreadId, list: u64) -> Result<(), Failure> {
    // x86-64 va_list: {i32 gp_offset, i32 fp_offset, ptr overflow_arg_area, ptr reg_save_area}.
    // Mark the register areas exhausted so every argument comes from the overflow area.
    let area = st.thread(tid).top().varargs;
    let mut bytes = vec![0u8; 24];
    bytes[0..4].copy_from_slice(&48u32.to_le_bytes());
    bytes[4..8].copy_from_slice(&176u32.to_le_bytes());
    let mut ptrs = Vec::new();
    let area_ptr = match area {
        Some(id) => make_ptr(id, 0),
        None => {
            let id = st.memory.allocate(Object::new(8, ObjKind::Internal));
            st.thread_mut(tid).top_mut().varargs = Some(id);
            make_ptr(id, 0)
        }
    };
    bytes[8..16].copy_from_slice(&area_ptr.to_le_bytes());
    ptrs.push(8);
    st.memory.write_fragment(
        list,
        &Fragment {
            data: bytes,
            ptrs,
            undef: Vec::new(),
        },
    )
}

/// `threadlocal.address`: thread `tid`'s copy of the thread-local global `global`,
/// made from the global's initial value on first use.
fn thread_local_address(m: &Machine<'_>, st: &mut State, tid: ThreadId, global: Val) -> Val {
    let p = global.as_u64();
    let (obj, off) = ptr_parts(p);
    if obj == 0 || obj > st.memory.globals || tid == 0 {
        // The main thread uses the global itself.
        return global;
    }
    if let Some(&(_, id)) = st.thread(tid).tls.iter().find(|(g, _)| *g == obj) {
        return Val::Ptr(make_ptr(id, off));
    }
    let g = &m.program.globals[(obj - 1) as usize];
    let mut o = Object::new(g.size as usize, ObjKind::ThreadLocal(obj));
    o.data[..g.init.len()].copy_from_slice(&g.init);
    o.ptrs = g.init_ptrs.to_vec();
    let id = st.memory.allocate(o);
    st.thread_mut(tid).tls.push((obj, id));
    Val::Ptr(make_ptr(id, off))
}

/// The one-operand float intrinsics (`fabs`, `sqrt` and the roundings).
fn round_float(i: &Intrinsic, x: &Val) -> Val {
    use Intrinsic::*;
    let v = x.f64();
    float_like(
        x,
        match i {
            Fabs => v.abs(),
            Sqrt => v.sqrt(),
            Floor => v.floor(),
            Ceil => v.ceil(),
            Trunc => v.trunc(),
            Round => v.round(),
            _ => v.round_ties_even(),
        },
    )
}

/// The `vector.reduce.*` intrinsics on integer lanes of `bits` bits.
fn reduce(i: &Intrinsic, lanes: &Val, bits: u32) -> Val {
    use Intrinsic::*;
    let mk = mask(bits);
    let l = lanes.lanes();
    let mut acc = l.first().map(|v| v.bits() & mk).unwrap_or(0);
    for v in l.iter().skip(1) {
        let x = v.bits() & mk;
        acc = match i {
            VecReduceAdd => acc.wrapping_add(x),
            VecReduceMul => acc.wrapping_mul(x),
            VecReduceAnd => acc & x,
            VecReduceOr => acc | x,
            VecReduceXor => acc ^ x,
            VecReduceUMax => acc.max(x),
            VecReduceUMin => acc.min(x),
            VecReduceSMax => {
                if sext(acc, bits) >= sext(x, bits) {
                    acc
                } else {
                    x
                }
            }
            _ => {
                if sext(acc, bits) <= sext(x, bits) {
                    acc
                } else {
                    x
                }
            }
        } & mk;
    }
    Val::Int(acc)
}

/// The class of float `x` as `is.fpclass` numbers its test-mask bits: 0 sNaN, 1 qNaN,
/// 2 -inf, 3 -normal, 4 -subnormal, 5 -0, 6 +0, 7 +subnormal, 8 +normal, 9 +inf.
fn fp_class(x: &Val) -> u32 {
    let (f, neg, quiet_nan) = match x {
        Val::F32(b) => (
            f32::from_bits(*b) as f64,
            b >> 31 == 1,
            b & 0x0040_0000 != 0,
        ),
        other => {
            let b = other.bits() as u64;
            (
                f64::from_bits(b),
                b >> 63 == 1,
                b & 0x0008_0000_0000_0000 != 0,
            )
        }
    };
    if f.is_nan() {
        if quiet_nan {
            1
        } else {
            0
        }
    } else if f.is_infinite() {
        if neg {
            2
        } else {
            9
        }
    } else if f == 0.0 {
        if neg {
            5
        } else {
            6
        }
    } else if f.is_subnormal() || (matches!(x, Val::F32(_)) && (f as f32).is_subnormal()) {
        if neg {
            4
        } else {
            7
        }
    } else if neg {
        3
    } else {
        8
    }
}

fn pick(c: bool, x: Val, y: Val) -> Val {
    if c {
        x
    } else {
        y
    }
}

fn float_like(like: &Val, v: f64) -> Val {
    match like {
        Val::F32(_) => Val::F32((v as f32).to_bits()),
        _ => Val::F64(v.to_bits()),
    }
}

/// The integer intrinsics on integers wider than 64 bits, on limbs (funnel shifts and
/// overflow checks need twice the width, which `u128` does not have above 64 bits);
/// `None` for any other intrinsic.
#[cold]
#[inline(never)]
fn integer_wide(i: &Intrinsic, args: &[Val], bits: u32) -> Option<Val> {
    use crate::wide::{self, Limbs};
    use Intrinsic::*;
    let a = |k: usize| wide::of(args.get(k).unwrap_or(&Val::Int(0)), bits);
    let int = |l: Limbs| wide::val(l, bits);
    let count = |n: u32| wide::val(wide::of(&Val::Int(n as u128), bits), bits);
    let (x, y) = (a(0), a(1));
    let smin = wide::signed_min(bits);
    let smax = wide::not(&smin, bits);
    Some(match i {
        UMin => int(if wide::ucmp(&x, &y).is_le() { x } else { y }),
        UMax => int(if wide::ucmp(&x, &y).is_ge() { x } else { y }),
        SMin => int(if wide::scmp(&x, &y, bits).is_le() {
            x
        } else {
            y
        }),
        SMax => int(if wide::scmp(&x, &y, bits).is_ge() {
            x
        } else {
            y
        }),
        Abs if wide::is_neg(&x, bits) => int(wide::neg(&x, bits)),
        Abs => int(x),
        Ctpop => count(wide::count_ones(&x)),
        Ctlz => count(wide::leading_zeros(&x, bits)),
        Cttz => count(wide::trailing_zeros(&x, bits)),
        Bswap => int(wide::swap_bytes(&x, bits)),
        Bitreverse => int(wide::reverse_bits(&x, bits)),
        Fshl | Fshr => int(funnel_shift_wide(i == &Fshl, x, y, &a(2), bits)),
        SAddO | UAddO | SSubO | USubO | SMulO | UMulO => {
            let (r, of) = match i {
                UAddO => {
                    let r = wide::add(&x, &y, bits);
                    let of = wide::ucmp(&r, &x).is_lt();
                    (r, of)
                }
                USubO => (wide::sub(&x, &y, bits), wide::ucmp(&y, &x).is_gt()),
                UMulO => (wide::mul(&x, &y, bits), wide::mul_overflows(&x, &y, bits)),
                SAddO | SSubO => wide::signed_add_sub(&x, &y, bits, i == &SAddO),
                _ => signed_mul_wide(&x, &y, bits),
            };
            Val::Agg(Arc::from(vec![int(r), Val::bool(of)]))
        }
        UAddSat => {
            let r = wide::add(&x, &y, bits);
            int(if wide::ucmp(&r, &x).is_lt() {
                wide::ones(bits)
            } else {
                r
            })
        }
        USubSat => int(if wide::ucmp(&y, &x).is_gt() {
            wide::zero(bits)
        } else {
            wide::sub(&x, &y, bits)
        }),
        SAddSat | SSubSat => {
            let (r, overflow) = wide::signed_add_sub(&x, &y, bits, i == &SAddSat);
            int(if overflow {
                if wide::is_neg(&x, bits) {
                    smin
                } else {
                    smax
                }
            } else {
                r
            })
        }
        SShlSat | UShlSat => int(shl_saturating_wide(i == &SShlSat, x, &y, bits)),
        VecReduceAdd | VecReduceMul | VecReduceAnd | VecReduceOr | VecReduceXor | VecReduceUMax
        | VecReduceUMin | VecReduceSMax | VecReduceSMin => int(reduce_wide(i, args, bits)),
        _ => return None,
    })
}

/// `fshl` (`left`) or `fshr` on `x:y` wider than 64 bits.
fn funnel_shift_wide(
    left: bool,
    x: crate::wide::Limbs,
    y: crate::wide::Limbs,
    s: &crate::wide::Limbs,
    bits: u32,
) -> crate::wide::Limbs {
    use crate::wide;
    // Concatenate x:y in 2·bits and shift, as LLVM defines it.
    let double = 2 * bits;
    let s = wide::udivrem(s, &wide::of(&Val::Int(bits as u128), bits), bits).1[0] as u32;
    let mut cat = wide::shl(&wide::of(&wide::val(x, bits), double), bits, double);
    let low = wide::of(&wide::val(y, bits), double);
    cat = wide::or(&cat, &low);
    if left {
        wide::lshr(&wide::shl(&cat, s, double), bits, double)
    } else {
        wide::lshr(&cat, s, double)
    }
}

/// `smul.with.overflow` wider than 64 bits: `(product, overflowed)`.
fn signed_mul_wide(
    x: &crate::wide::Limbs,
    y: &crate::wide::Limbs,
    bits: u32,
) -> (crate::wide::Limbs, bool) {
    use crate::wide::{self, Limbs};
    use std::cmp::Ordering;
    let r = wide::mul(x, y, bits);
    // Exact when the magnitudes' product fits and its sign is right.
    let (nx, ny) = (wide::is_neg(x, bits), wide::is_neg(y, bits));
    let ux = if nx { wide::neg(x, bits) } else { x.clone() };
    let uy = if ny { wide::neg(y, bits) } else { y.clone() };
    let smin = wide::signed_min(bits);
    let limit = if nx != ny {
        // Up to 2^(bits-1): the magnitude of the smallest value.
        smin
    } else {
        wide::not(&smin, bits)
    };
    let wider = |l: &Limbs| wide::of(&wide::val(l.clone(), bits), bits + 1);
    let zero = wide::is_zero(x) || wide::is_zero(y);
    let of = !zero
        && (wide::mul_overflows(&wider(&ux), &wider(&uy), bits + 1)
            || wide::ucmp(
                &wide::mul(&wider(&ux), &wider(&uy), bits + 1),
                &wider(&limit),
            ) == Ordering::Greater);
    (r, of)
}

/// `sshl.sat` (`signed`) or `ushl.sat` wider than 64 bits.
fn shl_saturating_wide(
    signed: bool,
    x: crate::wide::Limbs,
    s: &crate::wide::Limbs,
    bits: u32,
) -> crate::wide::Limbs {
    use crate::wide;
    let exact = wide::shift_amount(s, bits).and_then(|s| {
        let r = wide::shl(&x, s, bits);
        let back = if signed {
            wide::ashr(&r, s, bits)
        } else {
            wide::lshr(&r, s, bits)
        };
        (back == x).then_some(r)
    });
    match exact {
        Some(r) => r,
        None if wide::is_zero(&x) => x,
        None if !signed => wide::ones(bits),
        None if wide::is_neg(&x, bits) => wide::signed_min(bits),
        None => wide::not(&wide::signed_min(bits), bits),
    }
}

/// The `vector.reduce.*` intrinsics on lanes wider than 64 bits.
fn reduce_wide(i: &Intrinsic, args: &[Val], bits: u32) -> crate::wide::Limbs {
    use crate::wide::{self, Limbs};
    use Intrinsic::*;
    let lanes: Vec<Limbs> = args
        .first()
        .map(|v| v.lanes().iter().map(|l| wide::of(l, bits)).collect())
        .unwrap_or_default();
    let mut it = lanes.into_iter();
    let first = it.next().unwrap_or_else(|| wide::zero(bits));
    it.fold(first, |acc, x| match i {
        VecReduceAdd => wide::add(&acc, &x, bits),
        VecReduceMul => wide::mul(&acc, &x, bits),
        VecReduceAnd => wide::and(&acc, &x),
        VecReduceOr => wide::or(&acc, &x),
        VecReduceXor => wide::xor(&acc, &x),
        VecReduceUMax if wide::ucmp(&acc, &x).is_ge() => acc,
        VecReduceUMin if wide::ucmp(&acc, &x).is_le() => acc,
        VecReduceSMax if wide::scmp(&acc, &x, bits).is_ge() => acc,
        VecReduceSMin if wide::scmp(&acc, &x, bits).is_le() => acc,
        _ => x,
    })
}

/// The integer width an overloaded intrinsic call works on: its result type (or, for
/// void results, 64).
fn intrinsic_bits(m: &Machine<'_>, st: &State, tid: ThreadId) -> u32 {
    let fr = st.thread(tid).top();
    let body = m.program.functions[fr.func as usize]
        .body
        .as_ref()
        .expect("body");
    match &body.blocks[fr.block as usize].insts[fr.ip as usize] {
        crate::ir::Inst::Call { ret_ty, args, .. } => {
            let t = m.program.types.get(*ret_ty);
            match t {
                crate::ir::Ty::Int(b) => *b,
                crate::ir::Ty::Struct { fields, .. } => fields
                    .first()
                    .map(|f| m.program.types.int_bits(f.1))
                    .unwrap_or(64),
                crate::ir::Ty::Vector { elem, .. } => m.program.types.int_bits(*elem),
                _ => {
                    let _ = args;
                    64
                }
            }
        }
        _ => 64,
    }
}
