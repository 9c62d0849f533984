//! Locked instructions (atomicrmw, cmpxchg) and fences.

use inkwell::llvm_sys::core::LLVMGetAtomicRMWBinOp;
use inkwell::llvm_sys::LLVMAtomicOrdering;
use inkwell::types::{AnyTypeEnum, BasicTypeEnum};
use inkwell::values::{AsValueRef, BasicValueEnum, InstructionValue};
use inkwell::IntPredicate;

use super::llvm;
use super::rewriter::Rewriter;
use super::scalar::{self, Carrier};
use super::InstrumentError;
use crate::abi::RmwOp;

pub(crate) fn rewrite_rmw<'ctx>(
    rw: &mut Rewriter<'_, 'ctx>,
    rmw: InstructionValue<'ctx>,
) -> Result<(), InstrumentError> {
    let address = scalar::address_operand(rw, rmw, 0)?;
    let operand = scalar::value_operand(rw, rmw, 1)?;
    // SAFETY: `rmw` is a live atomicrmw instruction.
    let raw_op = unsafe { LLVMGetAtomicRMWBinOp(rmw.as_value_ref()) } as u32;
    let op = RmwOp::from_code(raw_op)
        .ok_or_else(|| rw.unsupported(rmw, format!("atomicrmw operation #{raw_op}")))?;
    let ty = operand.get_type();
    if op.is_float() && !matches!(ty, BasicTypeEnum::FloatType(_)) {
        return Err(rw.unsupported(rmw, format!("atomicrmw {op:?} on {ty}")));
    }
    let (callee, int) = match ty {
        // A 16-byte integer RMW: locked like `lock cmpxchg16b`, which x86 code loops on.
        BasicTypeEnum::IntType(t) if t.get_bit_width() == 128 && !op.is_float() => {
            (rw.tso.rmw_128()?, t)
        }
        _ => {
            let (width, int) = locked_carrier(rw, rmw, ty)?;
            if op.is_float() && !matches!(int.get_bit_width(), 32 | 64) {
                return Err(rw.unsupported(rmw, format!("atomicrmw {op:?} on {ty}")));
            }
            (rw.tso.rmw(width)?, int)
        }
    };
    rw.at(rmw);
    let carried = scalar::to_int(rw, operand, int)?;
    let code = rw
        .module
        .get_context()
        .i32_type()
        .const_int(u64::from(op.code()), false);
    let order = rw.order_code(llvm::ordering(rmw));
    let old = rw.call_value(
        callee,
        &[address.into(), carried.into(), code.into(), order.into()],
    )?;
    let old = scalar::from_int(rw, old, ty)?;
    rw.replace(rmw, old);
    rw.stats.rmws += 1;
    Ok(())
}

/// `cmpxchg` → `__tso_cmpxchg_N`, whose result (the value read) gives the `{T, i1}`
/// back with `icmp eq`: x86's `lock cmpxchg` never fails spuriously, so under TSO a
/// weak cmpxchg is a strong one. With `keep_orders` (C11) a weak one →
/// `__tso_cmpxchg_weak_N`, which says itself whether it stored: it may fail although
/// the values are equal.
pub(crate) fn rewrite_cmpxchg<'ctx>(
    rw: &mut Rewriter<'_, 'ctx>,
    cas: InstructionValue<'ctx>,
    keep_orders: bool,
) -> Result<(), InstrumentError> {
    let address = scalar::address_operand(rw, cas, 0)?;
    let expected = scalar::value_operand(rw, cas, 1)?;
    let desired = scalar::value_operand(rw, cas, 2)?;
    let ty = expected.get_type();
    let AnyTypeEnum::StructType(result_type) = cas.get_type() else {
        return Err(rw.unsupported(cas, "cmpxchg without a {T, i1} result"));
    };
    let weak = keep_orders && llvm::is_weak_cmpxchg(cas);
    let (callee, int) = match ty {
        // `lock cmpxchg16b`: clang emits it for 16-byte compare-exchanges.
        BasicTypeEnum::IntType(t) if t.get_bit_width() == 128 => (rw.tso.cmpxchg_128(weak)?, t),
        _ => {
            let (width, int) = locked_carrier(rw, cas, ty)?;
            (rw.tso.cmpxchg(width, weak)?, int)
        }
    };
    rw.at(cas);
    let expected_int = scalar::to_int(rw, expected, int)?;
    let desired_int = scalar::to_int(rw, desired, int)?;
    let order = rw.order_code(llvm::cmpxchg_success_ordering(cas));
    let failure_order = rw.order_code(llvm::cmpxchg_failure_ordering(cas));
    let returned = rw.call_value(
        callee,
        &[
            address.into(),
            expected_int.into(),
            desired_int.into(),
            order.into(),
            failure_order.into(),
        ],
    )?;
    let (old_int, success) = if weak {
        let pair = returned.into_struct_value();
        let old = rw
            .builder
            .build_extract_value(pair, 0, "")
            .map_err(|e| rw.builder_error(e))?;
        let stored = rw
            .builder
            .build_extract_value(pair, 1, "")
            .map_err(|e| rw.builder_error(e))?;
        (old, stored.into_int_value())
    } else {
        let success = rw
            .builder
            .build_int_compare(
                IntPredicate::EQ,
                returned.into_int_value(),
                expected_int.into_int_value(),
                "",
            )
            .map_err(|e| rw.builder_error(e))?;
        (returned, success)
    };
    let old = scalar::from_int(rw, old_int, ty)?;
    let with_old = rw
        .builder
        .build_insert_value(result_type.get_poison(), old, 0, "")
        .map_err(|e| rw.builder_error(e))?;
    let result = rw
        .builder
        .build_insert_value(with_old, success, 1, "")
        .map_err(|e| rw.builder_error(e))?;
    rw.replace(cas, result.as_basic_value_enum());
    rw.stats.cmpxchgs += 1;
    if weak {
        rw.stats.weak_cmpxchgs += 1;
    }
    Ok(())
}

/// The `iN` carrier of a locked operation's value type (no `_bytes` form exists).
fn locked_carrier<'ctx>(
    rw: &Rewriter<'_, 'ctx>,
    inst: InstructionValue<'ctx>,
    ty: BasicTypeEnum<'ctx>,
) -> Result<(usize, inkwell::types::IntType<'ctx>), InstrumentError> {
    match scalar::carrier_of(rw, ty).map_err(|what| rw.unsupported(inst, what))? {
        Carrier::Int { width, int, .. } => Ok((width, int)),
        Carrier::Bytes { size } => Err(rw.unsupported(
            inst,
            format!(
                "locked operation on {size} bytes ({ty}); the runtime has 1/2/4/8-byte forms and 16-byte integer ones only"
            ),
        )),
    }
}

pub(crate) fn rewrite_fence<'ctx>(
    rw: &mut Rewriter<'_, 'ctx>,
    fence: InstructionValue<'ctx>,
    keep_orders: bool,
) -> Result<(), InstrumentError> {
    let ordering = llvm::ordering(fence);
    let seq_cst = ordering == LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent;
    // A single-thread fence only orders against signal handlers in the same thread;
    // acquire/release/acq_rel fences compile to nothing on x86.
    if keep_orders && !llvm::is_single_thread(fence) {
        rw.at(fence);
        let order = rw.order_code(ordering);
        let callee = rw.tso.fence_order()?;
        rw.call_void(callee, &[order.into()])?;
    } else if seq_cst && !llvm::is_single_thread(fence) {
        rw.at(fence);
        rw.fence()?;
    } else {
        rw.stats.removed_fences += 1;
    }
    fence.erase_from_basic_block();
    Ok(())
}

trait AsBasicValueEnum<'ctx> {
    fn as_basic_value_enum(&self) -> BasicValueEnum<'ctx>;
}

impl<'ctx> AsBasicValueEnum<'ctx> for inkwell::values::AggregateValueEnum<'ctx> {
    fn as_basic_value_enum(&self) -> BasicValueEnum<'ctx> {
        match *self {
            inkwell::values::AggregateValueEnum::ArrayValue(v) => v.into(),
            inkwell::values::AggregateValueEnum::StructValue(v) => v.into(),
        }
    }
}
