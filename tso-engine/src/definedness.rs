//! Definedness: which bits of a value were never written (MemorySanitizer's shadow
//! bits, kept exactly per state).
//!
//! A *shadow* has the shape of the value it describes (a `Val`: scalars, or lanes of an
//! aggregate); the bits of a scalar shadow are the value's undefined bits (1 =
//! undefined; bits above the type's width mean nothing). Memory keeps one mask byte per
//! data byte (`Object::undef`), registers keep shadows only for undefined values
//! (`Frame::undef`), so a program that never touches uninitialised memory pays nothing.
//!
//! Where undefined bits come from: stack allocas, `malloc`, `realloc`'s new tail,
//! `new`, and LLVM `undef`/`poison` operands. Globals, `calloc`, `memset` and every
//! library write are defined. Loads, stores, `memcpy`/`memmove` and the TSO store
//! buffers copy masks byte for byte; a thread's argument and result keep their
//! undefined bits through `pthread_create`, `pthread_exit` and `pthread_join`.
//!
//! Propagation (the rules below, one function each):
//! - `and`: a result bit is defined when either input bit is a defined 0; `or`: when
//!   either is a defined 1; `xor`: when both are defined.
//! - `add`, `sub`, `mul`: every bit from the lowest undefined input bit upwards is
//!   undefined (a carry can reach any higher bit, never a lower one).
//! - Shifts move the mask with the value; an undefined shift amount makes the whole
//!   result undefined. Division: an undefined divisor is an error, an undefined
//!   dividend makes the whole result undefined.
//! - `icmp eq/ne` is defined when a pair of defined bits already differs, or when no
//!   bit is undefined; the ordered predicates are defined when every value the
//!   undefined bits allow gives the same answer (interval test).
//! - Floating point, conversions to and from floats and intrinsics without a rule of
//!   their own: any undefined input bit makes the whole result undefined.
//! - `select` and `phi` take the chosen operand's shadow; `freeze` is defined; casts,
//!   `extractvalue`, `insertvalue` and vector lane operations move lane shadows.
//!
//! What is an error (`uninitialized`): a branch, `switch` or `select` condition, an
//! address, a divisor, an alloca size or a call target with an undefined bit that
//! matters; an undefined argument a library function inspects; bytes a library
//! function compares or prints; `main`'s return value or the `exit` status.

use crate::error::{ErrorKind, Failure};
use crate::ir::{BinOp, CastOp, IntPred, Ty, TyId, TypeTable};
use crate::memory::{decode, encode};
use crate::value::{mask, sext, Val};
use crate::wide;
use std::sync::Arc;

/// An undefined register value: its shadow and where its undefined bits came from
/// (the allocation site or `undef` operand's location; not part of the state: a
/// replayed path recomputes it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Undef {
    pub shadow: Val,
    pub origin: Option<Origin>,
}

/// Where undefined bits came from, for the error message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Memory allocated (or an `undef` operand) at this location id.
    Site(u32),
    /// The stack variable with this index into `DebugInfo::locals`.
    Var(u32),
}

impl Origin {
    /// The origin of the undefined bytes of an object.
    pub fn of(o: &crate::memory::Object) -> Option<Origin> {
        match (o.kind, o.var) {
            (crate::memory::ObjKind::Stack, Some(v)) => Some(Origin::Var(v)),
            _ => o.site.map(Origin::Site),
        }
    }

    /// The origin of the undefined bits read from `[off, off+len)` of `o`: where a
    /// store or copy brought them from (`Object::undef_from`, newest first), else the
    /// object's own.
    pub fn of_range(o: &crate::memory::Object, off: u32, len: u32) -> Option<Origin> {
        let end = off + len.max(1);
        o.undef_from
            .iter()
            .rev()
            .find(|&&(at, l, _)| at < end && off < at + l)
            .map(|e| e.2)
            .or_else(|| Origin::of(o))
    }

    /// `uninitialised memory allocated at b.c:7`, `the variable main::x declared at
    /// a.c:2`.
    pub fn describe(self, program: &crate::ir::Program) -> Option<String> {
        let short = crate::ir::debug::short;
        match self {
            Origin::Site(l) => program.location(Some(l)).map(|l| {
                format!(
                    "uninitialised memory allocated at {}:{}",
                    short(&l.file),
                    l.line
                )
            }),
            Origin::Var(v) => program.debug.locals.get(v as usize).map(|v| {
                let name = match &v.function {
                    Some(f) => format!("{f}::{}", v.name),
                    None => v.name.to_string(),
                };
                format!(
                    "the variable `{name}` declared at {}:{}",
                    short(&v.file),
                    v.line
                )
            }),
        }
    }
}

/// Every bit of the shadow is 0.
pub fn is_defined(sh: &Val) -> bool {
    match sh {
        Val::Agg(l) => l.iter().all(is_defined),
        Val::Wide(l) => wide::is_zero(l),
        other => other.bits() == 0,
    }
}

/// A shadow with every bit of `v` undefined.
pub(crate) fn all_undefined(v: &Val) -> Val {
    match v {
        Val::Agg(l) => Val::Agg(l.iter().map(all_undefined).collect::<Vec<_>>().into()),
        Val::Wide(l) => Val::Wide(vec![u64::MAX; l.len()].into()),
        _ => Val::Int(u128::MAX),
    }
}

/// A defined shadow of the shape of `v`.
pub(crate) fn all_defined(v: &Val) -> Val {
    match v {
        Val::Agg(l) => Val::Agg(l.iter().map(all_defined).collect::<Vec<_>>().into()),
        Val::Wide(l) => Val::Wide(vec![0; l.len()].into()),
        _ => Val::Int(0),
    }
}

/// All undefined bits of a shadow, or-ed into one scalar (an undefined bit of a wide
/// shadow above the low 128 spoils every bit: callers ask about the low bits only).
pub fn smear(sh: &Val) -> u128 {
    match sh {
        Val::Agg(l) => l.iter().fold(0, |a, x| a | smear(x)),
        Val::Wide(l) if !wide::is_zero(&l[2.min(l.len())..]) => u128::MAX,
        other => other.bits(),
    }
}

/// The lanes of a shadow, as many as the value has (a scalar shadow for an aggregate
/// value covers every lane).
pub(crate) fn lanes_like(sh: &Val, v: &Val) -> Vec<Val> {
    match (sh, v) {
        (Val::Agg(s), Val::Agg(l)) => (0..l.len())
            .map(|i| s.get(i).cloned().unwrap_or(Val::Int(0)))
            .collect(),
        (s, Val::Agg(l)) => vec![s.clone(); l.len()],
        (s, _) => vec![s.clone()],
    }
}

/// The error for a use that depends on undefined bits.
pub(crate) fn error(what: &str, origin: Option<&str>) -> Failure {
    let from = match origin {
        Some(o) => format!(" ({o})"),
        None => String::new(),
    };
    Failure::new(
        ErrorKind::Uninitialized,
        format!("{what} depends on a value that was never initialised{from}"),
    )
}

/// The shadow of the bytes `mask` as a value of type `ty` (a load).
pub(crate) fn decode_mask(types: &TypeTable, ty: TyId, mask_bytes: &[u8]) -> Val {
    let v = decode(types, ty, mask_bytes, 0, &|_| false);
    // Floats decode to their bit patterns; pointers without provenance to integers.
    match v {
        Val::F32(b) => Val::Int(b as u128),
        Val::F64(b) => Val::Int(b as u128),
        other => other,
    }
}

/// The mask bytes of a value of type `ty` with shadow `sh` (a store).
pub(crate) fn encode_mask(types: &TypeTable, ty: TyId, sh: &Val) -> Vec<u8> {
    let mut out = vec![0u8; types.size(ty) as usize];
    let mut ptrs = Vec::new();
    encode(types, ty, &plain(sh), &mut out, 0, &mut ptrs);
    out
}

/// A shadow as plain integers (no pointer or float lanes), for encoding.
fn plain(sh: &Val) -> Val {
    match sh {
        Val::Agg(l) => Val::Agg(l.iter().map(plain).collect::<Vec<_>>().into()),
        Val::Wide(_) => sh.clone(),
        other => Val::Int(other.bits()),
    }
}

/// Bits from the lowest set bit of `u` upwards, within `m`.
fn upwards(u: u128, m: u128) -> u128 {
    if u & m == 0 {
        0
    } else {
        (u128::MAX << (u & m).trailing_zeros()) & m
    }
}

/// For vector operands, `scalar` applied lane by lane to the values `x`, `y` and their
/// shadows `sx`, `sy` (a scalar shadow stands for every lane); `None` for scalars.
fn lanewise(
    types: &TypeTable,
    ty: TyId,
    [x, y, sx, sy]: [&Val; 4],
    scalar: impl Fn(TyId, [&Val; 4]) -> Val,
) -> Option<Val> {
    if !matches!(x, Val::Agg(_)) && !matches!(y, Val::Agg(_)) {
        return None;
    }
    let st = types.scalar(ty);
    let (lx, ly) = (x.lanes(), y.lanes());
    let (ax, ay) = (lanes_like(sx, x), lanes_like(sy, y));
    Some(Val::Agg(
        (0..lx.len().min(ly.len()))
            .map(|i| scalar(st, [&lx[i], &ly[i], &ax[i], &ay[i]]))
            .collect::<Vec<_>>()
            .into(),
    ))
}

/// Shadow of a binary operation on scalars (or lanes): `x`, `y` are the values,
/// `sx`, `sy` their shadows.
pub(crate) fn binop(
    types: &TypeTable,
    op: BinOp,
    ty: TyId,
    x: &Val,
    y: &Val,
    sx: &Val,
    sy: &Val,
) -> Val {
    if let Some(lanes) = lanewise(types, ty, [x, y, sx, sy], |st, [x, y, sx, sy]| {
        binop(types, op, st, x, y, sx, sy)
    }) {
        return lanes;
    }
    let bits = match types.get(ty) {
        Ty::F32 => 32,
        Ty::F64 => 64,
        _ => types.int_bits(ty),
    };
    if bits > 128 {
        return binop_wide(op, bits, x, y, sx, sy);
    }
    let m = mask(bits);
    let (a, b) = (x.bits() & m, y.bits() & m);
    let (sa, sb) = (smear(sx) & m, smear(sy) & m);
    if sa | sb == 0 {
        return Val::Int(0);
    }
    let r = match op {
        BinOp::And => (sa | sb) & (sa | a) & (sb | b),
        BinOp::Or => (sa | sb) & (sa | !a) & (sb | !b),
        BinOp::Xor => sa | sb,
        BinOp::Add | BinOp::Sub | BinOp::Mul => upwards(sa | sb, m),
        BinOp::Shl | BinOp::LShr | BinOp::AShr if sb != 0 => m,
        BinOp::Shl if b < bits as u128 => sa << b,
        BinOp::LShr if b < bits as u128 => sa >> b,
        BinOp::AShr if b < bits as u128 => (sext(sa, bits) >> b) as u128,
        BinOp::Shl | BinOp::LShr | BinOp::AShr => 0,
        // Divisions (an undefined divisor was refused before) and floating point.
        _ => m,
    };
    Val::Int(r & m)
}

/// `binop` on integers wider than 128 bits, the same rules on limbs.
#[cold]
#[inline(never)]
fn binop_wide(op: BinOp, bits: u32, x: &Val, y: &Val, sx: &Val, sy: &Val) -> Val {
    let (a, b) = (wide::of(x, bits), wide::of(y, bits));
    let (sa, sb) = (wide::of(sx, bits), wide::of(sy, bits));
    let u = wide::or(&sa, &sb);
    if wide::is_zero(&u) {
        return wide::val(u, bits);
    }
    let all = wide::ones(bits);
    let r = match op {
        BinOp::And => wide::and(&wide::and(&u, &wide::or(&sa, &a)), &wide::or(&sb, &b)),
        BinOp::Or => {
            let (na, nb) = (wide::not(&a, bits), wide::not(&b, bits));
            wide::and(&wide::and(&u, &wide::or(&sa, &na)), &wide::or(&sb, &nb))
        }
        BinOp::Xor => u,
        BinOp::Add | BinOp::Sub | BinOp::Mul => {
            wide::shl(&all, wide::trailing_zeros(&u, bits), bits)
        }
        BinOp::Shl | BinOp::LShr | BinOp::AShr if !wide::is_zero(&sb) => all,
        BinOp::Shl | BinOp::LShr | BinOp::AShr => match (wide::shift_amount(&b, bits), op) {
            (Some(s), BinOp::Shl) => wide::shl(&sa, s, bits),
            (Some(s), BinOp::LShr) => wide::lshr(&sa, s, bits),
            (Some(s), _) => wide::ashr(&sa, s, bits),
            (None, _) => wide::zero(bits),
        },
        _ => all,
    };
    wide::val(r, bits)
}

/// Shadow (one bit) of an integer comparison.
pub(crate) fn icmp(
    types: &TypeTable,
    pred: IntPred,
    ty: TyId,
    x: &Val,
    y: &Val,
    sx: &Val,
    sy: &Val,
) -> Val {
    if let Some(lanes) = lanewise(types, ty, [x, y, sx, sy], |st, [x, y, sx, sy]| {
        icmp(types, pred, st, x, y, sx, sy)
    }) {
        return lanes;
    }
    let bits = types.int_bits(ty);
    if bits > 128 {
        return icmp_wide(pred, bits, x, y, sx, sy);
    }
    let m = mask(bits);
    let (a, b) = (x.bits() & m, y.bits() & m);
    let (sa, sb) = (smear(sx) & m, smear(sy) & m);
    let u = sa | sb;
    if u == 0 {
        return Val::Int(0);
    }
    let undefined = match pred {
        // Two defined bits that differ decide both predicates.
        IntPred::Eq | IntPred::Ne => (a ^ b) & !u == 0,
        _ => {
            // The range each side can take; signed order is unsigned order with the
            // sign bit flipped.
            let signed = matches!(
                pred,
                IntPred::Sgt | IntPred::Sge | IntPred::Slt | IntPred::Sle
            );
            let flip = if signed { 1u128 << (bits - 1) } else { 0 };
            let range = |v: u128, s: u128| {
                let f = v ^ flip;
                let sf = s;
                (f & !sf, f | sf)
            };
            let ((alo, ahi), (blo, bhi)) = (range(a, sa), range(b, sb));
            let decided = match pred {
                IntPred::Ugt | IntPred::Sgt => alo > bhi || ahi <= blo,
                IntPred::Uge | IntPred::Sge => alo >= bhi || ahi < blo,
                IntPred::Ult | IntPred::Slt => ahi < blo || alo >= bhi,
                IntPred::Ule | IntPred::Sle => ahi <= blo || alo > bhi,
                IntPred::Eq | IntPred::Ne => false,
            };
            !decided
        }
    };
    Val::Int(undefined as u128)
}

/// `icmp` on integers wider than 128 bits, the same rules on limbs.
#[cold]
#[inline(never)]
fn icmp_wide(pred: IntPred, bits: u32, x: &Val, y: &Val, sx: &Val, sy: &Val) -> Val {
    let (a, b) = (wide::of(x, bits), wide::of(y, bits));
    let (sa, sb) = (wide::of(sx, bits), wide::of(sy, bits));
    let u = wide::or(&sa, &sb);
    if wide::is_zero(&u) {
        return Val::Int(0);
    }
    let undefined = match pred {
        IntPred::Eq | IntPred::Ne => {
            wide::is_zero(&wide::and(&wide::xor(&a, &b), &wide::not(&u, bits)))
        }
        _ => {
            let signed = matches!(
                pred,
                IntPred::Sgt | IntPred::Sge | IntPred::Slt | IntPred::Sle
            );
            let mut flip = wide::zero(bits);
            if signed {
                flip = wide::signed_min(bits);
            }
            let range = |v: &[u64], s: &[u64]| {
                let f = wide::xor(v, &flip);
                (wide::and(&f, &wide::not(s, bits)), wide::or(&f, s))
            };
            let ((alo, ahi), (blo, bhi)) = (range(&a, &sa), range(&b, &sb));
            let c = wide::ucmp;
            let decided = match pred {
                IntPred::Ugt | IntPred::Sgt => c(&alo, &bhi).is_gt() || c(&ahi, &blo).is_le(),
                IntPred::Uge | IntPred::Sge => c(&alo, &bhi).is_ge() || c(&ahi, &blo).is_lt(),
                IntPred::Ult | IntPred::Slt => c(&ahi, &blo).is_lt() || c(&alo, &bhi).is_ge(),
                IntPred::Ule | IntPred::Sle => c(&ahi, &blo).is_le() || c(&alo, &bhi).is_gt(),
                IntPred::Eq | IntPred::Ne => false,
            };
            !decided
        }
    };
    Val::Int(undefined as u128)
}

/// Shadow of a cast.
pub(crate) fn cast(
    types: &TypeTable,
    op: CastOp,
    from: TyId,
    to: TyId,
    v: &Val,
    sh: &Val,
    out: &Val,
) -> Val {
    if matches!(types.get(from), Ty::Vector { .. })
        && matches!(types.get(to), Ty::Vector { .. })
        && op != CastOp::Bitcast
    {
        let (sf, stt) = (types.scalar(from), types.scalar(to));
        let (lv, lo) = (v.lanes(), out.lanes());
        let ls = lanes_like(sh, v);
        return Val::Agg(
            (0..lv.len().min(lo.len()))
                .map(|i| cast(types, op, sf, stt, &lv[i], &ls[i], &lo[i]))
                .collect::<Vec<_>>()
                .into(),
        );
    }
    let fb = types.int_bits(from);
    let tb = types.int_bits(to);
    if (fb > 128 || tb > 128) && op != CastOp::Bitcast {
        let s = wide::of(sh, fb);
        return match op {
            CastOp::Trunc | CastOp::ZExt | CastOp::PtrToInt | CastOp::IntToPtr => wide::val(s, tb),
            CastOp::SExt => wide::val(wide::sext(&s, fb, tb), tb),
            _ if wide::is_zero(&s) => all_defined(out),
            _ => all_undefined(out),
        };
    }
    let s = smear(sh);
    match op {
        CastOp::Trunc => Val::Int(s & mask(tb)),
        CastOp::ZExt | CastOp::PtrToInt | CastOp::IntToPtr | CastOp::AddrSpace => {
            Val::Int(s & mask(fb.min(tb.max(1))) & mask(tb))
        }
        CastOp::SExt => Val::Int(sext(s & mask(fb), fb) as u128 & mask(tb)),
        CastOp::Bitcast => {
            let n = types.size(from).max(types.size(to)) as usize;
            let mut bytes = vec![0u8; n];
            let enc = encode_mask(types, from, sh);
            bytes[..enc.len()].copy_from_slice(&enc);
            let m = types.size(to) as usize;
            decode_mask(types, to, &bytes[..m])
        }
        // Float conversions: any undefined bit spoils the whole result.
        _ => {
            if s & mask(fb.max(32)) != 0 {
                all_undefined(out)
            } else {
                all_defined(out)
            }
        }
    }
}

/// Shadow of `insertvalue`/`insertelement`: `sh` at `path` inside `agg_sh`.
pub(crate) fn insert(agg_sh: &Val, agg: &Val, path: &[u32], sh: Val) -> Val {
    let Some((&first, rest)) = path.split_first() else {
        return sh;
    };
    let mut lanes = lanes_like(agg_sh, agg);
    let inner = agg.lanes().get(first as usize).cloned().unwrap_or_default();
    if let Some(slot) = lanes.get_mut(first as usize) {
        *slot = insert(slot, &inner, rest, sh);
    }
    Val::Agg(Arc::from(lanes))
}

/// Shadow of `extractvalue`/`extractelement` at `path`.
pub(crate) fn extract(agg_sh: &Val, agg: &Val, path: &[u32]) -> Val {
    let mut sh = agg_sh.clone();
    let mut v = agg.clone();
    for &i in path {
        let lanes = lanes_like(&sh, &v);
        sh = lanes.get(i as usize).cloned().unwrap_or(Val::Int(0));
        v = v.lanes().get(i as usize).cloned().unwrap_or_default();
    }
    sh
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::TypeTable;

    fn i32_table() -> (TypeTable, TyId) {
        let mut t = TypeTable::default();
        let id = t.intern(Ty::Int(32), 4);
        (t, id)
    }

    /// The shadow of `x op y` on i32 values, given `(x, y)` and their shadows `(sx, sy)`.
    fn binop32(op: BinOp, (x, y): (u128, u128), (sx, sy): (u128, u128)) -> u128 {
        let (t, i32t) = i32_table();
        let r = binop(
            &t,
            op,
            i32t,
            &Val::Int(x),
            &Val::Int(y),
            &Val::Int(sx),
            &Val::Int(sy),
        );
        r.bits()
    }

    /// The shadow of the i32 comparison `x pred y`, as [`binop32`].
    fn icmp32(pred: IntPred, (x, y): (u128, u128), (sx, sy): (u128, u128)) -> u128 {
        let (t, i32t) = i32_table();
        let r = icmp(
            &t,
            pred,
            i32t,
            &Val::Int(x),
            &Val::Int(y),
            &Val::Int(sx),
            &Val::Int(sy),
        );
        r.bits()
    }

    #[test]
    fn and_with_defined_zero_is_defined() {
        assert_eq!(binop32(BinOp::And, (0, 0x0f), (0xff, 0)), 0x0f);
    }

    #[test]
    fn or_with_defined_one_is_defined() {
        assert_eq!(binop32(BinOp::Or, (0, 0xf0), (0xff, 0)), 0x0f);
    }

    #[test]
    fn add_is_undefined_from_the_lowest_undefined_bit_up() {
        assert_eq!(binop32(BinOp::Add, (1, 2), (0x10, 0)), 0xffff_fff0);
    }

    #[test]
    fn shifts_move_the_mask_and_an_undefined_amount_spoils_all() {
        assert_eq!(binop32(BinOp::Shl, (0, 4), (0x1, 0)), 0x10);
        assert_eq!(binop32(BinOp::LShr, (0, 4), (0xf0, 0)), 0xf);
        assert_eq!(binop32(BinOp::LShr, (0, 4), (0, 1)), 0xffff_ffff);
    }

    #[test]
    fn comparisons_decided_by_defined_bits_are_defined() {
        // Low byte undefined, but bit 8 differs: x != y whatever the low byte holds.
        assert_eq!(icmp32(IntPred::Eq, (0x100, 0), (0xff, 0)), 0);
        assert_eq!(icmp32(IntPred::Eq, (0, 0), (0xff, 0)), 1);
        // x in 0x100..=0x1ff is always > 5.
        assert_eq!(icmp32(IntPred::Ugt, (0x100, 5), (0xff, 0)), 0);
        assert_eq!(icmp32(IntPred::Sgt, (0, 0), (0xff, 0)), 1);
        // The sign bit undefined: signed order cannot be decided.
        assert_eq!(icmp32(IntPred::Slt, (0x10, 5), (0x8000_0000, 0)), 1);
    }
}
