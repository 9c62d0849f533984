//! Integers of any width as little-endian 64-bit limbs, computed modulo 2^bits.
//!
//! Registers hold integers up to 128 bits as `Val::Int(u128)` (the common path, which
//! stays on native `u128` arithmetic) and wider ones as `Val::Wide`, exactly
//! `limbs(bits)` limbs with the bits above the width zero. The functions here work for
//! every width; the interpreter uses them where `u128` cannot hold the value or its
//! intermediate results (widths above 128, funnel shifts and overflow checks above 64).

use crate::value::Val;
use smallvec::SmallVec;
use std::cmp::Ordering;
use std::sync::Arc;

/// The limbs of one integer; 256 bits stay inline.
pub(crate) type Limbs = SmallVec<[u64; 4]>;

/// How many limbs an integer of `bits` bits takes (at least one).
#[inline]
pub(crate) fn limbs(bits: u32) -> usize {
    (bits as usize).div_ceil(64).max(1)
}

/// The limbs of `v` as an integer of `bits` bits (truncated or zero-extended).
pub(crate) fn of(v: &Val, bits: u32) -> Limbs {
    let n = limbs(bits);
    let mut l: Limbs = match v {
        Val::Wide(w) => w.iter().copied().collect(),
        other => {
            let x = other.bits();
            SmallVec::from_slice(&[x as u64, (x >> 64) as u64])
        }
    };
    l.resize(n, 0);
    trim(&mut l, bits);
    l
}

/// The register value of the integer `l` of `bits` bits: `Int` up to 128 bits, `Wide`
/// above.
pub(crate) fn val(mut l: Limbs, bits: u32) -> Val {
    l.resize(limbs(bits), 0);
    trim(&mut l, bits);
    if bits <= 128 {
        let hi = l.get(1).copied().unwrap_or(0) as u128;
        Val::Int((hi << 64) | l[0] as u128)
    } else {
        Val::Wide(Arc::from(&l[..]))
    }
}

/// Clear the bits at and above `bits`.
pub(crate) fn trim(l: &mut [u64], bits: u32) {
    for (i, x) in l.iter_mut().enumerate() {
        let lo = i as u32 * 64;
        if lo >= bits {
            *x = 0;
        } else if bits - lo < 64 {
            *x &= (1u64 << (bits - lo)) - 1;
        }
    }
}

/// All ones at `bits` bits.
pub(crate) fn ones(bits: u32) -> Limbs {
    let mut l: Limbs = SmallVec::from_elem(u64::MAX, limbs(bits));
    trim(&mut l, bits);
    l
}

pub(crate) fn zero(bits: u32) -> Limbs {
    SmallVec::from_elem(0, limbs(bits))
}

#[inline]
pub(crate) fn bit(l: &[u64], i: u32) -> bool {
    l.get(i as usize / 64)
        .is_some_and(|x| x >> (i % 64) & 1 != 0)
}

fn set_bit(l: &mut [u64], i: u32) {
    if let Some(x) = l.get_mut(i as usize / 64) {
        *x |= 1 << (i % 64);
    }
}

pub(crate) fn is_zero(l: &[u64]) -> bool {
    l.iter().all(|&x| x == 0)
}

/// The sign bit of an integer of `bits` bits.
pub(crate) fn is_neg(l: &[u64], bits: u32) -> bool {
    bits > 0 && bit(l, bits - 1)
}

pub(crate) fn add(a: &[u64], b: &[u64], bits: u32) -> Limbs {
    let mut carry = false;
    let mut r: Limbs = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| {
            let (s, c1) = x.overflowing_add(y);
            let (s, c2) = s.overflowing_add(carry as u64);
            carry = c1 || c2;
            s
        })
        .collect();
    trim(&mut r, bits);
    r
}

/// `a + b` (or `a - b`) as signed integers, and whether it overflowed: the operands'
/// signs make the result's sign impossible.
pub(crate) fn signed_add_sub(a: &[u64], b: &[u64], bits: u32, add_op: bool) -> (Limbs, bool) {
    let r = if add_op {
        add(a, b, bits)
    } else {
        sub(a, b, bits)
    };
    let (na, nr) = (is_neg(a, bits), is_neg(&r, bits));
    let nb = is_neg(b, bits) == add_op;
    (r, na == nb && nr != na)
}

pub(crate) fn not(a: &[u64], bits: u32) -> Limbs {
    let mut r: Limbs = a.iter().map(|x| !x).collect();
    trim(&mut r, bits);
    r
}

pub(crate) fn neg(a: &[u64], bits: u32) -> Limbs {
    let mut one = zero(bits);
    one[0] = 1;
    add(&not(a, bits), &one, bits)
}

pub(crate) fn sub(a: &[u64], b: &[u64], bits: u32) -> Limbs {
    add(a, &neg(b, bits), bits)
}

pub(crate) fn mul(a: &[u64], b: &[u64], bits: u32) -> Limbs {
    let n = a.len();
    let mut r: Limbs = SmallVec::from_elem(0, n);
    for i in 0..n {
        let mut carry = 0u128;
        for j in 0..n - i {
            let t = a[i] as u128 * b[j] as u128 + r[i + j] as u128 + carry;
            r[i + j] = t as u64;
            carry = t >> 64;
        }
    }
    trim(&mut r, bits);
    r
}

/// Whether the full product of `a` and `b` (unsigned) needs more than `bits` bits.
pub(crate) fn mul_overflows(a: &[u64], b: &[u64], bits: u32) -> bool {
    let n = a.len();
    let mut r = vec![0u64; 2 * n];
    for i in 0..n {
        let mut carry = 0u128;
        for j in 0..n {
            let t = a[i] as u128 * b[j] as u128 + r[i + j] as u128 + carry;
            r[i + j] = t as u64;
            carry = t >> 64;
        }
        r[i + n] = carry as u64;
    }
    (bits..2 * n as u32 * 64).any(|k| bit(&r, k))
}

pub(crate) fn and(a: &[u64], b: &[u64]) -> Limbs {
    a.iter().zip(b).map(|(x, y)| x & y).collect()
}

pub(crate) fn or(a: &[u64], b: &[u64]) -> Limbs {
    a.iter().zip(b).map(|(x, y)| x | y).collect()
}

pub(crate) fn xor(a: &[u64], b: &[u64]) -> Limbs {
    a.iter().zip(b).map(|(x, y)| x ^ y).collect()
}

pub(crate) fn ucmp(a: &[u64], b: &[u64]) -> Ordering {
    a.iter().rev().cmp(b.iter().rev())
}

pub(crate) fn scmp(a: &[u64], b: &[u64], bits: u32) -> Ordering {
    match (is_neg(a, bits), is_neg(b, bits)) {
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => ucmp(a, b),
    }
}

/// `a << s` at `bits` bits; `s` must be below `bits`.
pub(crate) fn shl(a: &[u64], s: u32, bits: u32) -> Limbs {
    let n = a.len();
    let (w, b) = (s as usize / 64, s % 64);
    let mut r: Limbs = SmallVec::from_elem(0, n);
    for i in w..n {
        let lo = a[i - w] << b;
        let carry = if b > 0 && i > w {
            a[i - w - 1] >> (64 - b)
        } else {
            0
        };
        r[i] = lo | carry;
    }
    trim(&mut r, bits);
    r
}

/// `a >> s`, filling with `fill` bits; `s` must be below `bits`.
fn shr(a: &[u64], s: u32, bits: u32, fill: bool) -> Limbs {
    let n = a.len();
    let mut x: Limbs = SmallVec::from_slice(a);
    if fill {
        // Sign-extend to the whole limb vector so the shift brings in ones.
        for k in bits..n as u32 * 64 {
            set_bit(&mut x, k);
        }
    }
    let (w, b) = (s as usize / 64, s % 64);
    let mut r: Limbs = SmallVec::from_elem(if fill { u64::MAX } else { 0 }, n);
    for i in 0..n {
        if i + w >= n {
            break;
        }
        let lo = x[i + w] >> b;
        let hi = if b > 0 {
            x.get(i + w + 1)
                .map_or(if fill { u64::MAX } else { 0 }, |&h| h)
                << (64 - b)
        } else {
            0
        };
        r[i] = lo | hi;
    }
    trim(&mut r, bits);
    r
}

pub(crate) fn lshr(a: &[u64], s: u32, bits: u32) -> Limbs {
    shr(a, s, bits, false)
}

pub(crate) fn ashr(a: &[u64], s: u32, bits: u32) -> Limbs {
    shr(a, s, bits, is_neg(a, bits))
}

/// A shift amount `s` as a number below `bits`, or `None` when it is `bits` or more.
pub(crate) fn shift_amount(s: &[u64], bits: u32) -> Option<u32> {
    if s.iter().skip(1).any(|&x| x != 0) || s[0] >= bits as u64 {
        None
    } else {
        Some(s[0] as u32)
    }
}

/// Unsigned quotient and remainder; `b` must be non-zero.
pub(crate) fn udivrem(a: &[u64], b: &[u64], bits: u32) -> (Limbs, Limbs) {
    let mut q = zero(bits);
    let mut r = zero(bits);
    for i in (0..bits).rev() {
        // r = (r << 1) | bit i of a; r < b <= 2^bits - 1 so the shift loses nothing
        // once compared against b with one extra bit of room.
        let top = is_neg(&r, bits);
        r = shl(&r, 1, bits);
        if bit(a, i) {
            r[0] |= 1;
        }
        if top || ucmp(&r, b) != Ordering::Less {
            r = sub(&r, b, bits);
            set_bit(&mut q, i);
        }
    }
    (q, r)
}

/// Signed quotient and remainder (truncating), `b` non-zero and not `MIN / -1`.
pub(crate) fn sdivrem(a: &[u64], b: &[u64], bits: u32) -> (Limbs, Limbs) {
    let (na, nb) = (is_neg(a, bits), is_neg(b, bits));
    let ua = if na {
        neg(a, bits)
    } else {
        SmallVec::from_slice(a)
    };
    let ub = if nb {
        neg(b, bits)
    } else {
        SmallVec::from_slice(b)
    };
    let (q, r) = udivrem(&ua, &ub, bits);
    (
        if na != nb { neg(&q, bits) } else { q },
        if na { neg(&r, bits) } else { r },
    )
}

/// The smallest signed integer of `bits` bits.
pub(crate) fn signed_min(bits: u32) -> Limbs {
    let mut l = zero(bits);
    set_bit(&mut l, bits - 1);
    l
}

/// Sign-extend `a` from `from` to `to` bits.
pub(crate) fn sext(a: &[u64], from: u32, to: u32) -> Limbs {
    let mut r: Limbs = SmallVec::from_slice(a);
    r.resize(limbs(to), 0);
    if is_neg(a, from) {
        for k in from..to {
            set_bit(&mut r, k);
        }
    }
    trim(&mut r, to);
    r
}

pub(crate) fn count_ones(a: &[u64]) -> u32 {
    a.iter().map(|x| x.count_ones()).sum()
}

pub(crate) fn leading_zeros(a: &[u64], bits: u32) -> u32 {
    (0..bits)
        .rev()
        .position(|k| bit(a, k))
        .map_or(bits, |p| p as u32)
}

pub(crate) fn trailing_zeros(a: &[u64], bits: u32) -> u32 {
    (0..bits).position(|k| bit(a, k)).map_or(bits, |p| p as u32)
}

/// Reverse the bytes of an integer of `bits` bits (a multiple of 16).
pub(crate) fn swap_bytes(a: &[u64], bits: u32) -> Limbs {
    let bytes = to_bytes(a, bits.div_ceil(8) as usize);
    let rev: Vec<u8> = bytes.into_iter().rev().collect();
    from_bytes(&rev, bits)
}

pub(crate) fn reverse_bits(a: &[u64], bits: u32) -> Limbs {
    let mut r = zero(bits);
    for k in 0..bits {
        if bit(a, k) {
            set_bit(&mut r, bits - 1 - k);
        }
    }
    r
}

/// The first `n` little-endian bytes of `a`.
pub(crate) fn to_bytes(a: &[u64], n: usize) -> Vec<u8> {
    let mut out: Vec<u8> = a.iter().flat_map(|x| x.to_le_bytes()).collect();
    out.resize(n, 0);
    out
}

/// An integer of `bits` bits from little-endian bytes (missing bytes are zero).
pub(crate) fn from_bytes(bytes: &[u8], bits: u32) -> Limbs {
    let mut l = zero(bits);
    for (i, &b) in bytes.iter().enumerate().take(l.len() * 8) {
        l[i / 8] |= (b as u64) << (8 * (i % 8));
    }
    trim(&mut l, bits);
    l
}

/// The unsigned integer `a` as the nearest double (ties to even).
pub(crate) fn to_f64(a: &[u64], bits: u32) -> f64 {
    let top = bits - leading_zeros(a, bits);
    if top <= 128 {
        return u128_of(a) as f64;
    }
    // Keep the top 128 bits and fold everything below into a sticky bit: u128 → f64
    // rounds correctly and 128 bits leave room far beyond the 53-bit significand.
    let shift = top - 128;
    let sticky = trailing_zeros(a, bits) < shift;
    let hi = u128_of(&lshr(a, shift, bits)) | sticky as u128;
    hi as f64 * 2f64.powi(shift as i32)
}

/// The unsigned integer `a` as the nearest float (ties to even).
pub(crate) fn to_f32(a: &[u64], bits: u32) -> f32 {
    if bits - leading_zeros(a, bits) <= 128 {
        u128_of(a) as f32
    } else {
        f32::INFINITY
    }
}

/// `f` truncated toward zero as an integer of `bits` bits (out of range: LLVM's poison,
/// here the value modulo 2^bits of the saturated magnitude).
pub(crate) fn from_f64(f: f64, bits: u32) -> Limbs {
    let m = f.abs().trunc();
    let mut l = if m < 2f64.powi(127) || !m.is_finite() {
        let mut l = zero(bits.max(128));
        let x = m as u128;
        l[0] = x as u64;
        l[1] = (x >> 64) as u64;
        l
    } else {
        // m = mantissa * 2^exp with a 53-bit mantissa.
        let b = m.to_bits();
        let exp = ((b >> 52) & 0x7ff) as i32 - 1075;
        let mant = (b & ((1 << 52) - 1)) | (1 << 52);
        let mut l = zero(bits.max(128));
        l[0] = mant;
        let w = bits.max(128);
        if (exp as u32) < w {
            shl(&l, exp as u32, w)
        } else {
            zero(w)
        }
    };
    l.truncate(limbs(bits));
    trim(&mut l, bits);
    if f < 0.0 {
        neg(&l, bits)
    } else {
        l
    }
}

/// A decimal integer (with an optional `-`) modulo 2^bits; `None` if it is not one.
pub(crate) fn from_decimal(s: &str, bits: u32) -> Option<Limbs> {
    let (negative, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    if digits == "true" && !negative {
        return Some(of(&Val::Int(1), bits));
    }
    if digits == "false" && !negative {
        return Some(zero(bits));
    }
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut x = zero(bits);
    for d in digits.bytes() {
        let mut digit = zero(bits);
        digit[0] = (d - b'0') as u64;
        trim(&mut digit, bits);
        x = add(&mul(&x, &of(&Val::Int(10), bits), bits), &digit, bits);
    }
    Some(if negative { neg(&x, bits) } else { x })
}

/// The low 128 bits.
pub(crate) fn u128_of(a: &[u64]) -> u128 {
    let hi = a.get(1).copied().unwrap_or(0) as u128;
    (hi << 64) | a.first().copied().unwrap_or(0) as u128
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(x: u128, bits: u32) -> Limbs {
        of(&Val::Int(x), bits)
    }

    /// Against native `u128` arithmetic at widths where both apply.
    #[test]
    fn agrees_with_u128_at_128_bits_and_below() {
        let samples = [
            0u128,
            1,
            2,
            3,
            0x7f,
            0xff,
            0x8000_0000_0000_0000,
            u64::MAX as u128,
            1u128 << 64,
            (1u128 << 127) + 12345,
            u128::MAX,
            0x1234_5678_9abc_def0_0fed_cba9_8765_4321,
        ];
        for bits in [1u32, 7, 24, 64, 65, 96, 127, 128] {
            let m = crate::value::mask(bits);
            for &a in &samples {
                for &b in &samples {
                    let (x, y) = (a & m, b & m);
                    let (lx, ly) = (l(x, bits), l(y, bits));
                    assert_eq!(u128_of(&add(&lx, &ly, bits)), x.wrapping_add(y) & m);
                    assert_eq!(u128_of(&sub(&lx, &ly, bits)), x.wrapping_sub(y) & m);
                    assert_eq!(u128_of(&mul(&lx, &ly, bits)), x.wrapping_mul(y) & m);
                    assert_eq!(ucmp(&lx, &ly), x.cmp(&y));
                    let (sx, sy) = (crate::value::sext(x, bits), crate::value::sext(y, bits));
                    assert_eq!(scmp(&lx, &ly, bits), sx.cmp(&sy));
                    if let (Some(q0), Some(r0)) = (x.checked_div(y), x.checked_rem(y)) {
                        let (q, r) = udivrem(&lx, &ly, bits);
                        assert_eq!((u128_of(&q), u128_of(&r)), (q0, r0));
                        if !(sy == -1 && sx == crate::value::sext(1 << (bits - 1), bits)) {
                            let (q, r) = sdivrem(&lx, &ly, bits);
                            assert_eq!(u128_of(&q), sx.wrapping_div(sy) as u128 & m);
                            assert_eq!(u128_of(&r), sx.wrapping_rem(sy) as u128 & m);
                        }
                    }
                    let s = (b % bits as u128) as u32;
                    assert_eq!(u128_of(&shl(&lx, s, bits)), (x << s) & m);
                    assert_eq!(u128_of(&lshr(&lx, s, bits)), x >> s);
                    assert_eq!(u128_of(&ashr(&lx, s, bits)), (sx >> s) as u128 & m);
                    assert_eq!(
                        mul_overflows(&lx, &ly, bits),
                        x.checked_mul(y).is_none_or(|p| p > m)
                    );
                    // Signed overflow: the exact result (in i128 up to 126 bits) leaves
                    // the range.
                    if (2..=126).contains(&bits) {
                        let fits = |r: i128| r >= -(1i128 << (bits - 1)) && r < 1i128 << (bits - 1);
                        let (r, of) = signed_add_sub(&lx, &ly, bits, true);
                        assert_eq!((u128_of(&r), of), ((sx + sy) as u128 & m, !fits(sx + sy)));
                        let (r, of) = signed_add_sub(&lx, &ly, bits, false);
                        assert_eq!((u128_of(&r), of), ((sx - sy) as u128 & m, !fits(sx - sy)));
                    }
                }
                assert_eq!(
                    u128_of(&neg(&l(a & m, bits), bits)),
                    (a & m).wrapping_neg() & m
                );
                assert_eq!(to_f64(&l(a & m, bits), bits), (a & m) as f64);
            }
        }
    }

    #[test]
    fn wide_values_keep_their_high_bits() {
        let bits = 168;
        let top = shl(&l(1, bits), 167, bits);
        assert!(is_neg(&top, bits));
        assert_eq!(leading_zeros(&top, bits), 0);
        assert_eq!(trailing_zeros(&top, bits), 167);
        assert_eq!(lshr(&top, 167, bits)[0], 1);
        assert_eq!(count_ones(&ashr(&top, 100, bits)), 101);
        assert_eq!(from_decimal("-1", bits), Some(ones(bits)));
        assert_eq!(
            from_decimal("1267650600228229401496703205376", bits),
            Some(shl(&l(1, bits), 100, bits))
        );
        match val(top.clone(), bits) {
            Val::Wide(w) => assert_eq!(w.len(), 3),
            other => panic!("{other:?}"),
        }
        assert_eq!(of(&val(top.clone(), bits), bits), top);
        assert_eq!(swap_bytes(&swap_bytes(&top, bits), bits), top);
        assert_eq!(to_f64(&top, bits), 2f64.powi(167));
        assert_eq!(
            from_f64(-(2f64.powi(150)), bits),
            neg(&shl(&l(1, bits), 150, bits), bits)
        );
    }
}
