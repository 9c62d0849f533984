//! How a loaded/stored value travels through the integer-typed runtime functions:
//! pointers via ptrtoint/inttoptr, floats via bitcast, narrow integers via zext/trunc,
//! everything else as bytes through a temporary.

use inkwell::types::{BasicTypeEnum, IntType};
use inkwell::values::{BasicValueEnum, InstructionValue};

use super::rewriter::Rewriter;
use super::InstrumentError;
use crate::abi;

/// The integer carrier of a value of some type.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Carrier<'ctx> {
    /// Passed as `iN` (`width` indexes [`abi::ACCESS_WIDTHS`]).
    Int {
        width: usize,
        int: IntType<'ctx>,
        ty: BasicTypeEnum<'ctx>,
    },
    /// Passed as `size` bytes through a temporary.
    Bytes { size: u64 },
}

/// Choose the carrier of `ty`; `Err` names the type for an unsupported-construct error.
pub(crate) fn carrier_of<'ctx>(
    rw: &Rewriter<'_, 'ctx>,
    ty: BasicTypeEnum<'ctx>,
) -> Result<Carrier<'ctx>, String> {
    if let BasicTypeEnum::ScalableVectorType(_) = ty {
        return Err(format!("scalable vector access of type {ty}"));
    }
    let size = rw.store_size(ty);
    let scalar = matches!(
        ty,
        BasicTypeEnum::IntType(_) | BasicTypeEnum::PointerType(_) | BasicTypeEnum::FloatType(_)
    );
    let bits = u32::try_from(size * 8).unwrap_or(0);
    match abi::width_index(bits) {
        Some(width) if scalar => {
            let int = super::declare::carrier_int(rw.module, bits);
            Ok(Carrier::Int { width, int, ty })
        }
        _ => Ok(Carrier::Bytes { size }),
    }
}

/// Convert `value` (of the carrier's type) to its `iN` carrier, at the builder position.
pub fn to_int<'ctx>(
    rw: &Rewriter<'_, 'ctx>,
    value: BasicValueEnum<'ctx>,
    int: IntType<'ctx>,
) -> Result<BasicValueEnum<'ctx>, InstrumentError> {
    let b = &rw.builder;
    let out = match value {
        BasicValueEnum::IntValue(v) if v.get_type().get_bit_width() == int.get_bit_width() => {
            Ok(value)
        }
        BasicValueEnum::IntValue(v) => b.build_int_z_extend(v, int, "").map(Into::into),
        BasicValueEnum::PointerValue(v) => b.build_ptr_to_int(v, int, "").map(Into::into),
        BasicValueEnum::FloatValue(v) => b.build_bit_cast(v, int, ""),
        other => return Err(builder_mismatch(rw, other)),
    };
    out.map_err(|e| rw.builder_error(e))
}

/// Convert an `iN` carrier back to `ty`, at the builder position.
pub fn from_int<'ctx>(
    rw: &Rewriter<'_, 'ctx>,
    carried: BasicValueEnum<'ctx>,
    ty: BasicTypeEnum<'ctx>,
) -> Result<BasicValueEnum<'ctx>, InstrumentError> {
    let b = &rw.builder;
    let BasicValueEnum::IntValue(v) = carried else {
        return Err(builder_mismatch(rw, carried));
    };
    let out = match ty {
        BasicTypeEnum::IntType(t) if t.get_bit_width() == v.get_type().get_bit_width() => {
            Ok(carried)
        }
        BasicTypeEnum::IntType(t) => b.build_int_truncate(v, t, "").map(Into::into),
        BasicTypeEnum::PointerType(t) => b.build_int_to_ptr(v, t, "").map(Into::into),
        BasicTypeEnum::FloatType(t) => b.build_bit_cast(v, t, ""),
        _ => return Err(builder_mismatch(rw, carried)),
    };
    out.map_err(|e| rw.builder_error(e))
}

fn builder_mismatch(rw: &Rewriter<'_, '_>, value: BasicValueEnum<'_>) -> InstrumentError {
    InstrumentError::Builder {
        function: rw.function_name(),
        message: format!("cannot carry {value} as an integer"),
    }
}

/// The pointer operand `index` of `inst`, required to be in address space 0.
pub(crate) fn address_operand<'ctx>(
    rw: &Rewriter<'_, 'ctx>,
    inst: InstructionValue<'ctx>,
    index: u32,
) -> Result<inkwell::values::PointerValue<'ctx>, InstrumentError> {
    match inst.get_operand(index).and_then(|op| op.value()) {
        Some(BasicValueEnum::PointerValue(p))
            if p.get_type().get_address_space() == Default::default() =>
        {
            Ok(p)
        }
        Some(BasicValueEnum::PointerValue(_)) => {
            Err(rw.unsupported(inst, "access through a non-default address space"))
        }
        _ => Err(rw.unsupported(inst, "memory access without a scalar pointer operand")),
    }
}

/// The value operand `index` of `inst`.
pub(crate) fn value_operand<'ctx>(
    rw: &Rewriter<'_, 'ctx>,
    inst: InstructionValue<'ctx>,
    index: u32,
) -> Result<BasicValueEnum<'ctx>, InstrumentError> {
    inst.get_operand(index)
        .and_then(|op| op.value())
        .ok_or_else(|| rw.unsupported(inst, format!("missing operand {index}")))
}
