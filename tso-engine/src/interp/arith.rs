//! Integer and floating-point arithmetic, comparisons and casts.

use crate::error::{ErrorKind, Failure};
use crate::ir::{BinOp, CastOp, FloatPred, IntPred, Ty, TyId, TypeTable};
use crate::memory::{decode, encode};
use crate::value::{mask, sext, Val};
use crate::wide;
use std::sync::Arc;

fn lanewise(
    a: &Val,
    b: &Val,
    mut f: impl FnMut(&Val, &Val) -> Result<Val, Failure>,
) -> Result<Val, Failure> {
    let (la, lb) = (a.lanes(), b.lanes());
    let v: Result<Vec<Val>, Failure> = la.iter().zip(lb.iter()).map(|(x, y)| f(x, y)).collect();
    Ok(Val::Agg(Arc::from(v?)))
}

pub(crate) fn binop(
    types: &TypeTable,
    op: BinOp,
    ty: TyId,
    a: &Val,
    b: &Val,
) -> Result<Val, Failure> {
    if let (Val::Agg(_), _) | (_, Val::Agg(_)) = (a, b) {
        let st = types.scalar(ty);
        return lanewise(a, b, |x, y| binop(types, op, st, x, y));
    }
    match types.get(ty) {
        Ty::F32 | Ty::F64 => return Ok(float_binop(op, matches!(types.get(ty), Ty::F64), a, b)),
        _ => {}
    }
    let bits = types.int_bits(ty);
    if bits > 128 {
        return binop_wide(op, bits, a, b);
    }
    let m = mask(bits);
    let (x, y) = (a.bits() & m, b.bits() & m);
    let r = match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::UDiv | BinOp::URem | BinOp::SDiv | BinOp::SRem if y == 0 => {
            return Err(Failure::new(ErrorKind::DivisionByZero, "division by zero"));
        }
        BinOp::UDiv => x / y,
        BinOp::URem => x % y,
        BinOp::SDiv | BinOp::SRem => {
            let (sx, sy) = (sext(x, bits), sext(y, bits));
            if sy == -1 && sx == sext(1u128 << (bits - 1), bits) {
                return Err(Failure::new(
                    ErrorKind::DivisionByZero,
                    "signed division overflow (INT_MIN / -1)",
                ));
            }
            (if op == BinOp::SDiv {
                sx.wrapping_div(sy)
            } else {
                sx.wrapping_rem(sy)
            }) as u128
        }
        BinOp::Shl => {
            if y >= bits as u128 {
                0
            } else {
                x << y
            }
        }
        BinOp::LShr => {
            if y >= bits as u128 {
                0
            } else {
                x >> y
            }
        }
        BinOp::AShr => {
            if y >= bits as u128 {
                if sext(x, bits) < 0 {
                    u128::MAX
                } else {
                    0
                }
            } else {
                (sext(x, bits) >> y) as u128
            }
        }
        BinOp::And => x & y,
        BinOp::Or => x | y,
        BinOp::Xor => x ^ y,
        BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FRem => {
            return Ok(float_binop(op, bits == 64, a, b));
        }
    } & m;
    if bits > 64 && (a.ptr_lanes() | b.ptr_lanes()) != 0 {
        return Ok(binop_lanes(op, bits, a, b, y, r));
    }
    // Provenance: pointer ± integer stays a pointer into the same object.
    let keeps = |p: u64| (r as u64) >> 32 == p >> 32;
    Ok(match (a, b, op) {
        (Val::Ptr(_), Val::Ptr(_), BinOp::Sub) => Val::Int(r),
        (
            Val::Ptr(p),
            Val::Int(_),
            BinOp::Add | BinOp::Sub | BinOp::And | BinOp::Or | BinOp::Xor,
        ) if bits == 64 && keeps(*p) => Val::Ptr(r as u64),
        (Val::Int(_), Val::Ptr(p), BinOp::Add | BinOp::And | BinOp::Or)
            if bits == 64 && keeps(*p) =>
        {
            Val::Ptr(r as u64)
        }
        _ => Val::Int(r),
    })
}

/// The 64-bit lanes of an integer of `bits` bits that lie wholly inside it: those
/// that can hold a pointer.
#[inline]
fn whole_lanes(bits: u32) -> u8 {
    (bits >= 64) as u8 | ((bits >= 128) as u8) << 1
}

/// The result `r` of `a op b` on 65 to 128 bits where an operand holds a pointer in a
/// 64-bit lane (`Val::PtrLanes`): the provenance of each lane of `r`, by the rule
/// `binop` applies to 64-bit values. A shift by a multiple of 64 (`amount`) moves
/// lanes whole; `and`/`or`/`xor`/`add`/`sub` keep a lane's pointer when only one
/// operand has one there (for `sub`, the first) and the result lane still points into
/// its object. That is how a tagged pointer is packed (`zext`, `shl`, `or`) and taken
/// apart (`lshr`, `and`, `trunc`).
#[cold]
#[inline(never)]
fn binop_lanes(op: BinOp, bits: u32, a: &Val, b: &Val, amount: u128, r: u128) -> Val {
    let whole = whole_lanes(bits);
    let (la, lb) = (a.ptr_lanes() & whole, b.ptr_lanes() & whole);
    let lane = |v: u128, i: u32| (v >> (64 * i)) as u64;
    let mut out = 0u8;
    match op {
        BinOp::Shl | BinOp::LShr | BinOp::AShr
            if lb == 0 && amount % 64 == 0 && amount < bits as u128 =>
        {
            let k = (amount / 64) as u32;
            for i in 0..2u32 {
                let from = if op == BinOp::Shl {
                    i.checked_sub(k)
                } else {
                    Some(i + k)
                };
                if from.is_some_and(|f| f < 2 && la >> f & 1 != 0) && whole >> i & 1 != 0 {
                    out |= 1 << i;
                }
            }
        }
        BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Add | BinOp::Sub => {
            for i in 0..2u32 {
                let from = match (la >> i & 1 != 0, lb >> i & 1 != 0) {
                    (true, false) => a,
                    (false, true) if op != BinOp::Sub => b,
                    _ => continue,
                };
                if lane(r, i) >> 32 == lane(from.bits(), i) >> 32 {
                    out |= 1 << i;
                }
            }
        }
        _ => {}
    }
    Val::with_ptr_lanes(r, out)
}

/// `binop` on integers wider than 128 bits (no provenance: pointers are 64 bits).
#[cold]
#[inline(never)]
fn binop_wide(op: BinOp, bits: u32, a: &Val, b: &Val) -> Result<Val, Failure> {
    let (x, y) = (wide::of(a, bits), wide::of(b, bits));
    if matches!(op, BinOp::UDiv | BinOp::URem | BinOp::SDiv | BinOp::SRem) && wide::is_zero(&y) {
        return Err(Failure::new(ErrorKind::DivisionByZero, "division by zero"));
    }
    let r = match op {
        BinOp::Add => wide::add(&x, &y, bits),
        BinOp::Sub => wide::sub(&x, &y, bits),
        BinOp::Mul => wide::mul(&x, &y, bits),
        BinOp::UDiv => wide::udivrem(&x, &y, bits).0,
        BinOp::URem => wide::udivrem(&x, &y, bits).1,
        BinOp::SDiv | BinOp::SRem => {
            if y == wide::ones(bits) && x == wide::signed_min(bits) {
                return Err(Failure::new(
                    ErrorKind::DivisionByZero,
                    "signed division overflow (INT_MIN / -1)",
                ));
            }
            let (q, r) = wide::sdivrem(&x, &y, bits);
            if op == BinOp::SDiv {
                q
            } else {
                r
            }
        }
        BinOp::Shl | BinOp::LShr | BinOp::AShr => match (wide::shift_amount(&y, bits), op) {
            (Some(s), BinOp::Shl) => wide::shl(&x, s, bits),
            (Some(s), BinOp::LShr) => wide::lshr(&x, s, bits),
            (Some(s), _) => wide::ashr(&x, s, bits),
            (None, BinOp::AShr) if wide::is_neg(&x, bits) => wide::ones(bits),
            (None, _) => wide::zero(bits),
        },
        BinOp::And => wide::and(&x, &y),
        BinOp::Or => wide::or(&x, &y),
        BinOp::Xor => wide::xor(&x, &y),
        BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FRem => {
            return Err(Failure::unsupported(format!(
                "unsupported: floating-point operation on i{bits}"
            )));
        }
    };
    Ok(wide::val(r, bits))
}

fn float_binop(op: BinOp, double: bool, a: &Val, b: &Val) -> Val {
    if double {
        let (x, y) = (a.f64(), b.f64());
        let r = match op {
            BinOp::FAdd => x + y,
            BinOp::FSub => x - y,
            BinOp::FMul => x * y,
            BinOp::FDiv => x / y,
            _ => x % y,
        };
        Val::F64(r.to_bits())
    } else {
        let (x, y) = (a.f32(), b.f32());
        let r = match op {
            BinOp::FAdd => x + y,
            BinOp::FSub => x - y,
            BinOp::FMul => x * y,
            BinOp::FDiv => x / y,
            _ => x % y,
        };
        Val::F32(r.to_bits())
    }
}

pub(crate) fn fneg(types: &TypeTable, ty: TyId, a: &Val) -> Val {
    match a {
        Val::Agg(l) => Val::Agg(
            l.iter()
                .map(|x| fneg(types, types.scalar(ty), x))
                .collect::<Vec<_>>()
                .into(),
        ),
        Val::F32(b) => Val::F32(b ^ 0x8000_0000),
        Val::F64(b) => Val::F64(b ^ (1 << 63)),
        other => {
            if types.int_bits(types.scalar(ty)) == 32 {
                Val::F32(other.bits() as u32 ^ 0x8000_0000)
            } else {
                Val::F64(other.bits() as u64 ^ (1 << 63))
            }
        }
    }
}

pub(crate) fn icmp(types: &TypeTable, pred: IntPred, ty: TyId, a: &Val, b: &Val) -> Val {
    if let (Val::Agg(_), _) | (_, Val::Agg(_)) = (a, b) {
        let st = types.scalar(ty);
        let la = a.lanes();
        let lb = b.lanes();
        return Val::Agg(
            la.iter()
                .zip(lb)
                .map(|(x, y)| icmp(types, pred, st, x, y))
                .collect::<Vec<_>>()
                .into(),
        );
    }
    let bits = types.int_bits(ty);
    if bits > 128 {
        return icmp_wide(pred, bits, a, b);
    }
    let m = mask(bits);
    let (x, y) = (a.bits() & m, b.bits() & m);
    let (sx, sy) = (sext(x, bits), sext(y, bits));
    Val::bool(match pred {
        IntPred::Eq => x == y,
        IntPred::Ne => x != y,
        IntPred::Ugt => x > y,
        IntPred::Uge => x >= y,
        IntPred::Ult => x < y,
        IntPred::Ule => x <= y,
        IntPred::Sgt => sx > sy,
        IntPred::Sge => sx >= sy,
        IntPred::Slt => sx < sy,
        IntPred::Sle => sx <= sy,
    })
}

/// `icmp` on integers wider than 128 bits.
#[cold]
#[inline(never)]
fn icmp_wide(pred: IntPred, bits: u32, a: &Val, b: &Val) -> Val {
    let (x, y) = (wide::of(a, bits), wide::of(b, bits));
    let (u, s) = (wide::ucmp(&x, &y), wide::scmp(&x, &y, bits));
    Val::bool(match pred {
        IntPred::Eq => u.is_eq(),
        IntPred::Ne => u.is_ne(),
        IntPred::Ugt => u.is_gt(),
        IntPred::Uge => u.is_ge(),
        IntPred::Ult => u.is_lt(),
        IntPred::Ule => u.is_le(),
        IntPred::Sgt => s.is_gt(),
        IntPred::Sge => s.is_ge(),
        IntPred::Slt => s.is_lt(),
        IntPred::Sle => s.is_le(),
    })
}

pub(crate) fn fcmp(types: &TypeTable, pred: FloatPred, ty: TyId, a: &Val, b: &Val) -> Val {
    if let (Val::Agg(_), _) | (_, Val::Agg(_)) = (a, b) {
        let st = types.scalar(ty);
        return Val::Agg(
            a.lanes()
                .iter()
                .zip(b.lanes())
                .map(|(x, y)| fcmp(types, pred, st, x, y))
                .collect::<Vec<_>>()
                .into(),
        );
    }
    let double = matches!(types.get(ty), Ty::F64);
    let (x, y) = if double {
        (a.f64(), b.f64())
    } else {
        (a.f32() as f64, b.f32() as f64)
    };
    let uno = x.is_nan() || y.is_nan();
    use FloatPred::*;
    Val::bool(match pred {
        False => false,
        True => true,
        Oeq => !uno && x == y,
        Ogt => !uno && x > y,
        Oge => !uno && x >= y,
        Olt => !uno && x < y,
        Ole => !uno && x <= y,
        One => !uno && x != y,
        Ord => !uno,
        Uno => uno,
        Ueq => uno || x == y,
        Ugt => uno || x > y,
        Uge => uno || x >= y,
        Ult => uno || x < y,
        Ule => uno || x <= y,
        Une => uno || x != y,
    })
}

pub(crate) fn cast(
    types: &TypeTable,
    op: CastOp,
    from: TyId,
    to: TyId,
    a: &Val,
) -> Result<Val, Failure> {
    let vec_from = matches!(types.get(from), Ty::Vector { .. });
    let vec_to = matches!(types.get(to), Ty::Vector { .. });
    if vec_from && vec_to && op != CastOp::Bitcast {
        let (sf, stt) = (types.scalar(from), types.scalar(to));
        let lanes: Result<Vec<Val>, Failure> = a
            .lanes()
            .iter()
            .map(|x| cast(types, op, sf, stt, x))
            .collect();
        return Ok(Val::Agg(lanes?.into()));
    }
    let fb = types.int_bits(from);
    let tb = types.int_bits(to);
    let to_double = matches!(types.get(to), Ty::F64);
    if (fb > 128 || tb > 128) && op != CastOp::Bitcast {
        return cast_wide(op, fb, tb, to_double, a);
    }
    Ok(match op {
        // A pointer's lane survives when the result still holds it whole.
        CastOp::Trunc => match a {
            Val::Ptr(_) | Val::PtrLanes(..) => {
                Val::with_ptr_lanes(a.bits() & mask(tb), a.ptr_lanes() & whole_lanes(tb))
            }
            _ => Val::Int(a.bits() & mask(tb)),
        },
        CastOp::ZExt => match a {
            Val::Ptr(p) if tb >= 64 => Val::Ptr(*p),
            Val::PtrLanes(..) => a.clone(),
            _ => Val::Int(a.bits() & mask(fb)),
        },
        // A pointer's top bit is clear (object ids are below 2^31): extended as by zext.
        CastOp::SExt => match a {
            Val::Ptr(p) if fb == 64 && (*p as i64) >= 0 => Val::Ptr(*p),
            _ => Val::Int(sext(a.bits() & mask(fb), fb) as u128 & mask(tb)),
        },
        CastOp::FpToUi | CastOp::FpToSi => {
            let f = a.f64();
            let v = if op == CastOp::FpToUi {
                (f as u128) & mask(tb)
            } else {
                (f as i128) as u128 & mask(tb)
            };
            Val::Int(v)
        }
        CastOp::UiToFp | CastOp::SiToFp => {
            let x = a.bits() & mask(fb);
            let f = if op == CastOp::UiToFp {
                x as f64
            } else {
                sext(x, fb) as f64
            };
            if to_double {
                Val::F64(f.to_bits())
            } else {
                let f32v = if op == CastOp::UiToFp {
                    x as f32
                } else {
                    sext(x, fb) as f32
                };
                Val::F32(f32v.to_bits())
            }
        }
        CastOp::FpTrunc => Val::F32((a.f64() as f32).to_bits()),
        CastOp::FpExt => Val::F64(a.f64().to_bits()),
        CastOp::PtrToInt => match a {
            Val::Ptr(p) if tb >= 64 => Val::Ptr(*p),
            other => Val::Int(other.bits() & mask(tb)),
        },
        CastOp::IntToPtr | CastOp::AddrSpace => match a {
            Val::Ptr(p) => Val::Ptr(*p),
            Val::PtrLanes(v, l) if l & 1 != 0 => Val::Ptr(*v as u64),
            other => Val::Int(other.bits() & mask(64)),
        },
        CastOp::Bitcast => bitcast(types, from, to, a),
    })
}

/// `cast` where the source or the result is wider than 128 bits.
#[cold]
#[inline(never)]
fn cast_wide(op: CastOp, fb: u32, tb: u32, to_double: bool, a: &Val) -> Result<Val, Failure> {
    let float = |negative: bool, magnitude: &[u64], bits: u32| {
        let sign = if negative { -1.0 } else { 1.0 };
        if to_double {
            Val::F64((sign * wide::to_f64(magnitude, bits)).to_bits())
        } else {
            Val::F32((sign as f32 * wide::to_f32(magnitude, bits)).to_bits())
        }
    };
    Ok(match op {
        CastOp::ZExt | CastOp::PtrToInt if matches!(a, Val::Ptr(_)) => a.clone(),
        CastOp::Trunc | CastOp::ZExt | CastOp::PtrToInt => wide::val(wide::of(a, fb), tb),
        CastOp::SExt => wide::val(wide::sext(&wide::of(a, fb), fb, tb), tb),
        CastOp::FpToUi | CastOp::FpToSi => wide::val(wide::from_f64(a.f64(), tb), tb),
        CastOp::UiToFp => float(false, &wide::of(a, fb), fb),
        CastOp::SiToFp => {
            let x = wide::of(a, fb);
            let negative = wide::is_neg(&x, fb);
            let magnitude = if negative { wide::neg(&x, fb) } else { x };
            // The magnitude of the smallest value needs the sign bit: read it unsigned.
            float(negative, &magnitude, fb)
        }
        CastOp::IntToPtr => Val::Int(a.bits() & mask(64)),
        _ => {
            return Err(Failure::unsupported(format!(
                "unsupported: cast {op:?} between i{fb} and i{tb}"
            )))
        }
    })
}

fn bitcast(types: &TypeTable, from: TyId, to: TyId, a: &Val) -> Val {
    match (types.get(from), types.get(to)) {
        (Ty::Int(_), Ty::Int(_)) | (Ty::Ptr, Ty::Ptr) => a.clone(),
        (Ty::Int(_), Ty::F32) => Val::F32(a.bits() as u32),
        (Ty::Int(_), Ty::F64) => Val::F64(a.bits() as u64),
        (Ty::F32 | Ty::F64, Ty::Int(_)) => Val::Int(a.bits()),
        (Ty::F32, Ty::F32) | (Ty::F64, Ty::F64) => a.clone(),
        _ => {
            // Through memory bytes: vectors <-> integers and the like.
            let size = types.size(from).max(types.size(to)) as usize;
            let mut bytes = vec![0u8; size];
            let mut ptrs = Vec::new();
            let n = types.size(from) as usize;
            encode(types, from, a, &mut bytes[..n], 0, &mut ptrs);
            let m = types.size(to) as usize;
            decode(types, to, &bytes[..m], 0, &|p| ptrs.contains(&p))
        }
    }
}

#[cfg(test)]
mod tests {
    //! Provenance in 64-bit lanes: a tagged pointer `{ node*, tag }` packed into an
    //! `i128` (ptrtoint, zext, shl, or), stored and loaded as 16 bytes, and taken apart
    //! (lshr, and, trunc, inttoptr) is still a pointer, in either lane.
    use super::*;
    use crate::value::make_ptr;

    struct T {
        t: TypeTable,
        i64: TyId,
        i128: TyId,
        ptr: TyId,
    }

    fn types() -> T {
        let mut t = TypeTable::default();
        let i64 = t.intern(Ty::Int(64), 8);
        let i128 = t.intern(Ty::Int(128), 16);
        let ptr = t.intern(Ty::Ptr, 8);
        T { t, i64, i128, ptr }
    }

    fn bin(t: &T, op: BinOp, a: &Val, b: &Val) -> Val {
        binop(&t.t, op, t.i128, a, b).unwrap()
    }

    fn cast_to(t: &T, op: CastOp, from: TyId, to: TyId, a: &Val) -> Val {
        cast(&t.t, op, from, to, a).unwrap()
    }

    /// The value after a 16-byte store and load.
    fn through_memory(t: &T, v: &Val) -> Val {
        let mut bytes = [0u8; 16];
        let mut ptrs = Vec::new();
        encode(&t.t, t.i128, v, &mut bytes, 0, &mut ptrs);
        decode(&t.t, t.i128, &bytes, 0, &|o| ptrs.contains(&o))
    }

    /// `node` packed with `tag` in the other lane, as C's
    /// `(unsigned __int128)(uintptr_t)node << 64*lane | (unsigned __int128)tag << 64*(1-lane)`.
    fn pack(t: &T, node: u64, tag: u128, lane: u32) -> Val {
        let p = cast_to(t, CastOp::PtrToInt, t.ptr, t.i64, &Val::Ptr(node));
        let p = cast_to(t, CastOp::ZExt, t.i64, t.i128, &p);
        let tag = cast_to(t, CastOp::ZExt, t.i64, t.i128, &Val::Int(tag));
        let shift = |v: &Val, l: u32| bin(t, BinOp::Shl, v, &Val::Int(64 * l as u128));
        bin(t, BinOp::Or, &shift(&p, lane), &shift(&tag, 1 - lane))
    }

    /// The pointer of lane `lane` of `v`, as C's `(node *)(uintptr_t)(uint64_t)(v >> 64*lane)`.
    fn unpack(t: &T, v: &Val, lane: u32) -> Val {
        let v = bin(t, BinOp::LShr, v, &Val::Int(64 * lane as u128));
        let v = cast_to(t, CastOp::Trunc, t.i128, t.i64, &v);
        cast_to(t, CastOp::IntToPtr, t.i64, t.ptr, &v)
    }

    #[test]
    fn a_pointer_packed_in_either_lane_keeps_its_provenance() {
        let t = types();
        let node = make_ptr(7, 16);
        for lane in 0..2 {
            let packed = pack(&t, node, 41, lane);
            assert_eq!(packed.ptr_lanes(), 1 << lane, "lane {lane}: {packed:?}");
            let stored = through_memory(&t, &packed);
            assert_eq!(stored, packed, "lane {lane}");
            assert_eq!(unpack(&t, &stored, lane), Val::Ptr(node), "lane {lane}");
            // The tag in the other lane is a plain integer.
            assert_eq!(unpack(&t, &stored, 1 - lane), Val::Int(41), "lane {lane}");
            // Masking the pointer's lane out keeps it: `v & 0xffff_ffff_ffff_ffff << 64*lane`.
            let mask = Val::Int((u64::MAX as u128) << (64 * lane));
            assert_eq!(bin(&t, BinOp::And, &stored, &mask).ptr_lanes(), 1 << lane);
        }
        // Two pointers, one per lane (a 16-byte struct of two pointers).
        let two = bin(
            &t,
            BinOp::Or,
            &pack(&t, make_ptr(3, 0), 0, 0),
            &pack(&t, make_ptr(9, 8), 0, 1),
        );
        assert_eq!(two.ptr_lanes(), 0b11);
        let two = through_memory(&t, &two);
        assert_eq!(unpack(&t, &two, 0), Val::Ptr(make_ptr(3, 0)));
        assert_eq!(unpack(&t, &two, 1), Val::Ptr(make_ptr(9, 8)));
        let mut seen = Vec::new();
        two.for_each_pointer(&mut |p| seen.push(p));
        assert_eq!(seen, vec![make_ptr(3, 0), make_ptr(9, 8)]);
    }

    #[test]
    fn mixing_a_pointers_bits_with_others_drops_its_provenance() {
        let t = types();
        let packed = pack(&t, make_ptr(7, 16), 41, 0);
        // Shifts that do not move a lane whole, products, and a pointer's object bits
        // changed by the other operand.
        for v in [
            bin(&t, BinOp::Shl, &packed, &Val::Int(32)),
            bin(&t, BinOp::LShr, &packed, &Val::Int(8)),
            bin(&t, BinOp::Mul, &packed, &Val::Int(3)),
            bin(&t, BinOp::Xor, &packed, &Val::Int(1 << 40)),
            bin(&t, BinOp::Sub, &Val::Int(1 << 100), &packed),
            cast_to(
                &t,
                CastOp::Trunc,
                t.i128,
                t.i64,
                &bin(&t, BinOp::LShr, &packed, &Val::Int(64)),
            ),
        ] {
            assert_eq!(v.ptr_lanes(), 0, "{v:?}");
        }
        // A pointer shifted out of the width is gone; one shifted to lane 1 and back is not.
        let up = bin(&t, BinOp::Shl, &packed, &Val::Int(64));
        assert_eq!(up.ptr_lanes(), 0b10);
        assert_eq!(bin(&t, BinOp::Shl, &up, &Val::Int(64)), Val::Int(0));
        assert_eq!(
            bin(&t, BinOp::AShr, &up, &Val::Int(64)),
            Val::Ptr(make_ptr(7, 16))
        );
        // Two pointers in one lane: their difference is an integer.
        let d = bin(&t, BinOp::Sub, &packed, &pack(&t, make_ptr(7, 0), 41, 0));
        assert_eq!(d, Val::Int(16));
    }

    #[test]
    fn one_form_per_value() {
        // Lane 0 alone with nothing above is `Ptr`, as ptrtoint+zext make it; no lane is `Int`.
        assert_eq!(Val::with_ptr_lanes(5 << 32, 1), Val::Ptr(5 << 32));
        assert_eq!(Val::with_ptr_lanes(1 << 70, 0), Val::Int(1 << 70));
        assert_eq!(
            Val::with_ptr_lanes(1 << 70 | 5 << 32, 1),
            Val::PtrLanes(1 << 70 | 5 << 32, 1)
        );
    }
}
