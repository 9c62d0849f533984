//! Runtime values held in registers.
//!
//! A pointer is the 64-bit number `(object << 32) | offset`. `Val::Ptr` is that number
//! plus provenance: the engine knows it refers to an object, so it can rename objects
//! when it canonicalises a state. Pointer arithmetic keeps provenance, so pointers
//! survive ptrtoint/inttoptr round trips.
//!
//! Provenance lives in 64-bit lanes: a pointer packed into a wider integer (a tagged
//! pointer `{ node*, tag }` as an `unsigned __int128`, the value of a `cmpxchg16b`)
//! keeps it in the lane it occupies (`Val::PtrLanes`), and memory keeps it per pointer
//! start whatever the width of the access (`memory/layout.rs`). Moving a lane whole
//! (shifts by multiples of 64, truncation, extension, masking with `and`/`or`) keeps
//! it; anything that mixes a pointer's bits with others drops it.

use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Val {
    /// An integer of any width up to 128 bits, zero-extended.
    Int(u128),
    /// A pointer with provenance.
    Ptr(u64),
    /// IEEE single, as bits.
    F32(u32),
    /// IEEE double, as bits.
    F64(u64),
    /// An integer of 65 to 128 bits whose 64-bit lanes marked in the mask (bit `i`:
    /// bits `64i..64i+63`) each hold a pointer with provenance. Built only by
    /// `Val::with_ptr_lanes`, so a value has one form: never without a lane (`Int`),
    /// never lane 0 alone with zero upper bits (`Ptr`).
    PtrLanes(u128, u8),
    /// An integer wider than 128 bits: `wide::limbs(width)` little-endian limbs, the
    /// bits above the width zero (`wide.rs`). Next to `Agg`, so dropping a `Val` tests
    /// one range for both reference-counted variants.
    Wide(Arc<[u64]>),
    /// Struct, array or vector lanes.
    Agg(Arc<[Val]>),
}

impl Default for Val {
    fn default() -> Self {
        Val::Int(0)
    }
}

#[inline]
pub(crate) fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

#[inline]
pub(crate) fn sext(v: u128, bits: u32) -> i128 {
    if bits >= 128 || bits == 0 {
        v as i128
    } else {
        let shift = 128 - bits;
        ((v << shift) as i128) >> shift
    }
}

#[inline]
pub fn ptr_parts(p: u64) -> (u32, u32) {
    ((p >> 32) as u32, p as u32)
}

#[inline]
pub fn make_ptr(obj: u32, off: u32) -> u64 {
    ((obj as u64) << 32) | off as u64
}

/// A copy of `vals`, as `to_vec` makes but at the cost of one `memcpy` and a scan.
///
/// A frame's registers are copied on its first write after each state's copy, which
/// makes this the most frequent copy of the search; the derived clone copies each
/// value by matching its variant.
pub(crate) fn copy_vals(vals: &[Val]) -> Vec<Val> {
    // One more owner for each shared array, for the copy to hold.
    for v in vals {
        match v {
            Val::Wide(limbs) => std::mem::forget(Arc::clone(limbs)),
            Val::Agg(lanes) => std::mem::forget(Arc::clone(lanes)),
            _ => {}
        }
    }
    let mut out = Vec::with_capacity(vals.len());
    // SAFETY: `out` has room for `vals.len()` values and does not overlap `vals`. The
    // bits copied are valid values: plain data, or an `Arc` pointer whose strong count
    // the loop above raised, so the copy and the original each own one count.
    unsafe {
        std::ptr::copy_nonoverlapping(vals.as_ptr(), out.as_mut_ptr(), vals.len());
        out.set_len(vals.len());
    }
    out
}

impl Val {
    #[inline]
    pub(crate) fn bool(b: bool) -> Val {
        Val::Int(b as u128)
    }
    /// The raw bits of a scalar (pointers as their number, floats as their bits).
    #[inline]
    pub fn bits(&self) -> u128 {
        match self {
            Val::Int(v) => *v,
            Val::Wide(l) => crate::wide::u128_of(l),
            Val::Ptr(p) => *p as u128,
            Val::PtrLanes(v, _) => *v,
            Val::F32(b) => *b as u128,
            Val::F64(b) => *b as u128,
            Val::Agg(_) => 0,
        }
    }
    #[inline]
    pub fn as_u64(&self) -> u64 {
        self.bits() as u64
    }
    #[inline]
    pub(crate) fn is_true(&self) -> bool {
        self.bits() & 1 != 0
    }
    pub(crate) fn f64(&self) -> f64 {
        match self {
            Val::F64(b) => f64::from_bits(*b),
            Val::F32(b) => f32::from_bits(*b) as f64,
            other => f64::from_bits(other.bits() as u64),
        }
    }
    pub(crate) fn f32(&self) -> f32 {
        match self {
            Val::F32(b) => f32::from_bits(*b),
            Val::F64(b) => f64::from_bits(*b) as f32,
            other => f32::from_bits(other.bits() as u32),
        }
    }
    /// An integer of up to 128 bits with provenance in the 64-bit lanes `lanes` marks,
    /// in its one form (see `Val::PtrLanes`).
    #[inline]
    pub fn with_ptr_lanes(bits: u128, lanes: u8) -> Val {
        match lanes & 3 {
            0 => Val::Int(bits),
            1 if bits >> 64 == 0 => Val::Ptr(bits as u64),
            l => Val::PtrLanes(bits, l),
        }
    }
    /// Which 64-bit lanes of this scalar hold a pointer with provenance (bit `i`: lane
    /// `i`); 0 for all but `Ptr` and `PtrLanes`.
    #[inline]
    pub fn ptr_lanes(&self) -> u8 {
        match self {
            Val::Ptr(_) => 1,
            Val::PtrLanes(_, l) => *l,
            _ => 0,
        }
    }
    pub(crate) fn lanes(&self) -> &[Val] {
        match self {
            Val::Agg(v) => v,
            _ => std::slice::from_ref(self),
        }
    }
    pub(crate) fn for_each_pointer(&self, f: &mut impl FnMut(u64)) {
        match self {
            Val::Ptr(p) => f(*p),
            Val::PtrLanes(v, lanes) => lane_pointers(*v, *lanes, f),
            Val::Agg(v) => v.iter().for_each(|x| x.for_each_pointer(f)),
            _ => {}
        }
    }
}

/// The pointers of the lanes `lanes` marks in `v` (`Val::PtrLanes`), out of line: rare.
#[cold]
#[inline(never)]
fn lane_pointers(v: u128, lanes: u8, f: &mut impl FnMut(u64)) {
    for i in 0..2 {
        if lanes >> i & 1 != 0 {
            f((v >> (64 * i)) as u64)
        }
    }
}

#[cfg(test)]
mod copy_tests {
    use super::*;

    /// The copy equals the original and owns its shared arrays: each has one more
    /// owner while the copy lives, and the original count after it is dropped.
    #[test]
    fn copy_vals_owns_its_shared_arrays() {
        let limbs: Arc<[u64]> = Arc::from(vec![1u64, 2, 3]);
        let lanes: Arc<[Val]> = Arc::from(vec![Val::Int(7), Val::Ptr(9)]);
        let vals = vec![
            Val::Int(u128::MAX),
            Val::Wide(limbs.clone()),
            Val::F64(3),
            Val::Agg(lanes.clone()),
            Val::PtrLanes(5, 2),
            Val::Wide(limbs.clone()),
        ];
        let copy = copy_vals(&vals);
        assert_eq!(copy, vals);
        assert_eq!(Arc::strong_count(&limbs), 5);
        assert_eq!(Arc::strong_count(&lanes), 3);
        drop(copy);
        assert_eq!(Arc::strong_count(&limbs), 3);
        assert_eq!(Arc::strong_count(&lanes), 2);
        drop(vals);
        assert_eq!(Arc::strong_count(&limbs), 1);
        assert!(copy_vals(&[]).is_empty());
    }
}
