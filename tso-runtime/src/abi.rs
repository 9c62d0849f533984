//! The `__tso_*` ABI: the contract between the instrumentation pass (which emits calls)
//! and the store-buffer runtime (which implements them as engine natives).
//!
//! Pointers are 64-bit engine pointers; `N` (the access width in bits) is one of
//! [`ACCESS_WIDTHS`]. Every function runs atomically in the engine.

/// Access widths (bits) that have dedicated `__tso_load_N`/`__tso_store_N`/`__tso_rmw_N`/
/// `__tso_cmpxchg_N` functions. Anything else goes through the `_bytes` variants.
pub(crate) const ACCESS_WIDTHS: [u32; 4] = [8, 16, 32, 64];

/// Prefix shared by every runtime function; the pass never instruments calls to these.
pub(crate) const PREFIX: &str = "__tso_";

/// `iN __tso_load_N(ptr addr, i32 order)`, indexed like [`ACCESS_WIDTHS`].
pub(crate) const LOAD: [&str; 4] = [
    "__tso_load_8",
    "__tso_load_16",
    "__tso_load_32",
    "__tso_load_64",
];
/// `void __tso_store_N(ptr addr, iN value, i32 order)`.
pub(crate) const STORE: [&str; 4] = [
    "__tso_store_8",
    "__tso_store_16",
    "__tso_store_32",
    "__tso_store_64",
];
/// `void __tso_store_locked_N(ptr addr, iN value, i32 order)`: a seq_cst store as x86
/// compilers emit it, `xchg` (a locked write): drains the thread's buffer, then writes
/// memory. The pass's other choice, `mov; mfence`, behaves the same but stops between
/// the two, where the store waits in the buffer of a thread whose next step drains it;
/// those states add nothing (`crate::instrument::memory_ops`).
pub(crate) const STORE_LOCKED: [&str; 4] = [
    "__tso_store_locked_8",
    "__tso_store_locked_16",
    "__tso_store_locked_32",
    "__tso_store_locked_64",
];
/// `iN __tso_rmw_N(ptr addr, iN operand, i32 op, i32 order)`: locked RMW, returns the
/// old value.
pub(crate) const RMW: [&str; 4] = [
    "__tso_rmw_8",
    "__tso_rmw_16",
    "__tso_rmw_32",
    "__tso_rmw_64",
];
/// `iN __tso_cmpxchg_N(ptr addr, iN expected, iN desired, i32 order, i32
/// failure_order)`: locked CAS, returns the old value. `failure_order` (the order of
/// a compare-exchange that fails) is for the C11 model; x86 ignores it.
pub(crate) const CMPXCHG: [&str; 4] = [
    "__tso_cmpxchg_8",
    "__tso_cmpxchg_16",
    "__tso_cmpxchg_32",
    "__tso_cmpxchg_64",
];
/// `i128 __tso_cmpxchg_128(ptr addr, i128 expected, i128 desired, i32 order, i32
/// failure_order)`: `lock cmpxchg16b`,
/// the one 16-byte locked instruction (a 16-byte `cmpxchg`, as clang emits for
/// `__atomic_compare_exchange` on 16 bytes or `__sync_val_compare_and_swap` on
/// `__int128`); returns the old value.
pub(crate) const CMPXCHG_128: &str = "__tso_cmpxchg_128";
/// `{iN, i1} __tso_cmpxchg_weak_N(ptr addr, iN expected, iN desired, i32 order, i32
/// failure_order)`: a weak compare-exchange (`cmpxchg weak`), which may fail although
/// the value read equals `expected` (LL/SC on ARM and POWER); returns the value read
/// and whether it stored, as `cmpxchg` does. Emitted only when the pass keeps memory
/// orders (C11): x86's `lock cmpxchg` never fails spuriously, so under TSO a weak
/// compare-exchange is [`CMPXCHG`].
pub(crate) const CMPXCHG_WEAK: [&str; 4] = [
    "__tso_cmpxchg_weak_8",
    "__tso_cmpxchg_weak_16",
    "__tso_cmpxchg_weak_32",
    "__tso_cmpxchg_weak_64",
];
/// `{i128, i1} __tso_cmpxchg_weak_128(...)`: [`CMPXCHG_WEAK`] on 16 bytes.
pub(crate) const CMPXCHG_WEAK_128: &str = "__tso_cmpxchg_weak_128";
/// `i128 __tso_rmw_128(ptr addr, i128 operand, i32 op, i32 order)`: a 16-byte `atomicrmw` (x86
/// compilers implement it as a `lock cmpxchg16b` loop, which ends with the one that
/// succeeds): a locked read-modify-write of all 16 bytes; returns the old value.
pub(crate) const RMW_128: &str = "__tso_rmw_128";
/// `void __tso_load_bytes(ptr dst_local, ptr src, i64 n, i32 order)`.
pub(crate) const LOAD_BYTES: &str = "__tso_load_bytes";
/// `void __tso_store_bytes(ptr dst, ptr src_local, i64 n, i32 order)`.
pub(crate) const STORE_BYTES: &str = "__tso_store_bytes";
/// `void __tso_fence(void)`: mfence, drains the executing thread's buffer.
pub(crate) const FENCE: &str = "__tso_fence";
/// `void __tso_fence_order(i32 order)`: `atomic_thread_fence(order)` of any order, as
/// the pass emits it when it keeps memory orders
/// ([`crate::instrument::InstrumentOptions::keep_orders`], for the C11 model).
pub(crate) const FENCE_ORDER: &str = "__tso_fence_order";
/// `void __tso_call_fence(void)`: the same barrier, inserted by the pass around a call
/// to a library function (whose real implementation synchronises); named apart so
/// traces can leave it out.
pub(crate) const CALL_FENCE: &str = "__tso_call_fence";
/// `void __tso_memcpy(ptr dst, ptr src, i64 n)`.
pub(crate) const MEMCPY: &str = "__tso_memcpy";
/// `void __tso_memmove(ptr dst, ptr src, i64 n)`.
pub(crate) const MEMMOVE: &str = "__tso_memmove";
/// `void __tso_memset(ptr dst, i8 val, i64 n)`.
pub(crate) const MEMSET: &str = "__tso_memset";
/// `void __tso_evict(ptr p)`: the object containing `p` is about to be released
/// (`p` may be null, e.g. `free(NULL)` or `realloc(NULL, n)`: then it is a no-op).
pub(crate) const EVICT: &str = "__tso_evict";

/// The `i32 order` argument of the loads, stores and locked operations: the memory
/// order the program wrote the access with, as the engine's code for it
/// (`tso_engine::MemOrder::code`, 0: not atomic; for a compare-exchange, its success
/// ordering). The buffers ignore it
/// (x86 orders every access alike); the race screen reads it
/// (`tso_engine::ProgramAccesses`). Its index per function:
pub(crate) const ORDER_ARG_LOAD: usize = 1;
pub(crate) const ORDER_ARG_STORE: usize = 2;
/// Of `__tso_rmw_*`, `__tso_cmpxchg_*` and `__tso_cmpxchg_weak_*`.
pub(crate) const ORDER_ARG_LOCKED: usize = 3;
/// Of `__tso_load_bytes` and `__tso_store_bytes`.
pub(crate) const ORDER_ARG_BYTES: usize = 3;

/// Index of `bits` in [`ACCESS_WIDTHS`], if it has dedicated functions.
pub(crate) fn width_index(bits: u32) -> Option<usize> {
    ACCESS_WIDTHS.iter().position(|&w| w == bits)
}

/// Operation code passed as the `i32 op` argument of `__tso_rmw_N`.
/// The numbering equals LLVM's `LLVMAtomicRMWBinOp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum RmwOp {
    Xchg = 0,
    Add = 1,
    Sub = 2,
    And = 3,
    Nand = 4,
    Or = 5,
    Xor = 6,
    Max = 7,
    Min = 8,
    UMax = 9,
    UMin = 10,
    FAdd = 11,
    FSub = 12,
    FMax = 13,
    FMin = 14,
    UIncWrap = 15,
    UDecWrap = 16,
}

impl RmwOp {
    pub const ALL: [RmwOp; 17] = [
        RmwOp::Xchg,
        RmwOp::Add,
        RmwOp::Sub,
        RmwOp::And,
        RmwOp::Nand,
        RmwOp::Or,
        RmwOp::Xor,
        RmwOp::Max,
        RmwOp::Min,
        RmwOp::UMax,
        RmwOp::UMin,
        RmwOp::FAdd,
        RmwOp::FSub,
        RmwOp::FMax,
        RmwOp::FMin,
        RmwOp::UIncWrap,
        RmwOp::UDecWrap,
    ];

    pub fn code(self) -> u32 {
        self as u32
    }

    pub(crate) fn from_code(code: u32) -> Option<RmwOp> {
        RmwOp::ALL.get(code as usize).copied()
    }

    /// Whether the operands are floating-point bit patterns (f32 for N=32, f64 for N=64).
    pub fn is_float(self) -> bool {
        matches!(self, RmwOp::FAdd | RmwOp::FSub | RmwOp::FMax | RmwOp::FMin)
    }

    /// The new memory value for `old op operand` at width `bits` (8, 16, 32 or 64);
    /// inputs and result are the low `bits` bits. `None` for a float op at a width
    /// that is not 32 or 64 (the pass never emits one) or an unsupported width.
    pub(crate) fn apply(self, bits: u32, old: u64, operand: u64) -> Option<u64> {
        width_index(bits)?;
        if self.is_float() {
            return float_apply(self, bits, old, operand);
        }
        self.int_apply(bits, u128::from(old), u128::from(operand))
            .map(|v| v as u64)
    }

    /// `apply` on 128 bits (`__tso_rmw_128`); `None` for the float operations, which
    /// have no 128-bit form.
    pub(crate) fn apply_128(self, old: u128, operand: u128) -> Option<u128> {
        self.int_apply(128, old, operand)
    }

    /// An integer operation at width `bits` (up to 128) on the low `bits` bits of its
    /// inputs; `None` for a float operation.
    fn int_apply(self, bits: u32, old: u128, operand: u128) -> Option<u128> {
        let mask = if bits == 128 {
            u128::MAX
        } else {
            (1u128 << bits) - 1
        };
        let (old, operand) = (old & mask, operand & mask);
        let shift = 128 - bits;
        let signed = |v: &u128| ((v << shift) as i128) >> shift;
        let new = match self {
            RmwOp::Xchg => operand,
            RmwOp::Add => old.wrapping_add(operand),
            RmwOp::Sub => old.wrapping_sub(operand),
            RmwOp::And => old & operand,
            RmwOp::Nand => !(old & operand),
            RmwOp::Or => old | operand,
            RmwOp::Xor => old ^ operand,
            // On equal keys both give `old`, as the comparisons of LLVM's max/min do.
            RmwOp::Max => std::cmp::max_by_key(operand, old, signed),
            RmwOp::Min => std::cmp::min_by_key(old, operand, signed),
            RmwOp::UMax => old.max(operand),
            RmwOp::UMin => old.min(operand),
            RmwOp::UIncWrap if old >= operand => 0,
            RmwOp::UIncWrap => old + 1,
            RmwOp::UDecWrap if old == 0 || old > operand => operand,
            RmwOp::UDecWrap => old - 1,
            RmwOp::FAdd | RmwOp::FSub | RmwOp::FMax | RmwOp::FMin => return None,
        };
        Some(new & mask)
    }
}

fn float_apply(op: RmwOp, bits: u32, old: u64, operand: u64) -> Option<u64> {
    // LLVM's fmax/fmin follow llvm.maxnum/minnum (IEEE maxNum: a NaN operand loses).
    match bits {
        32 => {
            let (a, b) = (f32::from_bits(old as u32), f32::from_bits(operand as u32));
            let r = match op {
                RmwOp::FAdd => a + b,
                RmwOp::FSub => a - b,
                RmwOp::FMax => a.max(b),
                _ => a.min(b),
            };
            Some(u64::from(r.to_bits()))
        }
        64 => {
            let (a, b) = (f64::from_bits(old), f64::from_bits(operand));
            let r = match op {
                RmwOp::FAdd => a + b,
                RmwOp::FSub => a - b,
                RmwOp::FMax => a.max(b),
                _ => a.min(b),
            };
            Some(r.to_bits())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_match_llvm_numbering() {
        for (i, op) in RmwOp::ALL.iter().enumerate() {
            assert_eq!(op.code() as usize, i);
            assert_eq!(RmwOp::from_code(i as u32), Some(*op));
        }
        assert_eq!(RmwOp::from_code(17), None);
        assert_eq!(
            RmwOp::UDecWrap.code(),
            inkwell::llvm_sys::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpUDecWrap as u32
        );
        assert_eq!(
            RmwOp::FMin.code(),
            inkwell::llvm_sys::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpFMin as u32
        );
    }

    #[test]
    fn apply_respects_width_and_signedness() {
        assert_eq!(RmwOp::Add.apply(8, 0xff, 1), Some(0));
        assert_eq!(RmwOp::Sub.apply(16, 0, 1), Some(0xffff));
        assert_eq!(RmwOp::Max.apply(8, 0x80, 1), Some(1)); // -128 < 1
        assert_eq!(RmwOp::UMax.apply(8, 0x80, 1), Some(0x80));
        assert_eq!(RmwOp::Min.apply(32, 0xffff_ffff, 0), Some(0xffff_ffff)); // -1 < 0
        assert_eq!(RmwOp::Nand.apply(8, 0x0f, 0xff), Some(0xf0));
        assert_eq!(RmwOp::UIncWrap.apply(32, 5, 5), Some(0));
        assert_eq!(RmwOp::UIncWrap.apply(32, 4, 5), Some(5));
        assert_eq!(RmwOp::UDecWrap.apply(32, 0, 7), Some(7));
        assert_eq!(RmwOp::UDecWrap.apply(32, 9, 7), Some(7));
        assert_eq!(RmwOp::UDecWrap.apply(32, 3, 7), Some(2));
        let r = RmwOp::FAdd.apply(32, u64::from(1.5f32.to_bits()), u64::from(2.0f32.to_bits()));
        assert_eq!(r, Some(u64::from(3.5f32.to_bits())));
        let r = RmwOp::FMax.apply(64, f64::NAN.to_bits(), 2.0f64.to_bits());
        assert_eq!(r, Some(2.0f64.to_bits()));
        assert_eq!(RmwOp::FAdd.apply(16, 0, 0), None);
        assert_eq!(RmwOp::Add.apply(12, 0, 0), None);
    }

    #[test]
    fn apply_128_carries_across_the_halves_and_signs_at_bit_127() {
        assert_eq!(RmwOp::Add.apply_128(u64::MAX as u128, 1), Some(1 << 64));
        assert_eq!(RmwOp::Sub.apply_128(1 << 64, 1), Some(u64::MAX as u128));
        assert_eq!(RmwOp::Max.apply_128(1 << 127, 1), Some(1)); // negative < 1
        assert_eq!(RmwOp::UMax.apply_128(1 << 127, 1), Some(1 << 127));
        assert_eq!(RmwOp::Xchg.apply_128(5, 7 << 64), Some(7 << 64));
        assert_eq!(RmwOp::Nand.apply_128(0, 0), Some(u128::MAX));
        assert_eq!(RmwOp::FAdd.apply_128(0, 0), None);
    }
}
