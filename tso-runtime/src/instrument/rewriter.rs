//! Per-function rewriting context: the builder (positioned with the right debug
//! location), the runtime declarations, type sizes and the temporaries of the
//! `_bytes` accesses.

use std::collections::HashMap;

use inkwell::builder::{Builder, BuilderError};
use inkwell::module::Module;
use inkwell::targets::TargetData;
use inkwell::types::{AsTypeRef, BasicTypeEnum};
use inkwell::values::{
    AsValueRef, BasicMetadataValueEnum, BasicValueEnum, FunctionValue, InstructionValue,
    PointerValue,
};

use super::declare::TsoFunctions;
use super::llvm;
use super::{InstrumentError, InstrumentStats};

pub(crate) struct Rewriter<'a, 'ctx> {
    pub module: &'a Module<'ctx>,
    pub tso: &'a TsoFunctions<'a, 'ctx>,
    pub function: FunctionValue<'ctx>,
    pub stats: &'a mut InstrumentStats,
    pub builder: Builder<'ctx>,
    pub target: TargetData,
    /// One `_bytes` temporary per type: each is written and read back immediately.
    temps: HashMap<inkwell::llvm_sys::prelude::LLVMTypeRef, PointerValue<'ctx>>,
}

impl<'a, 'ctx> Rewriter<'a, 'ctx> {
    pub(crate) fn new(
        module: &'a Module<'ctx>,
        tso: &'a TsoFunctions<'a, 'ctx>,
        function: FunctionValue<'ctx>,
        stats: &'a mut InstrumentStats,
    ) -> Self {
        let target = TargetData::create(module.get_data_layout().as_str().to_str().unwrap_or(""));
        Rewriter {
            module,
            tso,
            function,
            stats,
            builder: module.get_context().create_builder(),
            target,
            temps: HashMap::new(),
        }
    }

    pub(crate) fn function_name(&self) -> String {
        self.function.get_name().to_string_lossy().into_owned()
    }

    /// Insert before `inst`, with `inst`'s debug location.
    pub(crate) fn at(&self, inst: InstructionValue<'ctx>) {
        self.builder.position_before(&inst);
        self.take_location_of(inst);
    }

    /// Insert right after `inst` (which must not be a terminator), with its debug location.
    pub(crate) fn after(&self, inst: InstructionValue<'ctx>) -> Result<(), InstrumentError> {
        let next = inst
            .get_next_instruction()
            .ok_or_else(|| self.unsupported(inst, "call without a following instruction"))?;
        self.builder.position_before(&next);
        self.take_location_of(inst);
        Ok(())
    }

    pub(crate) fn take_location_of(&self, inst: InstructionValue<'ctx>) {
        match inst.get_debug_location() {
            Some(loc) => self.builder.set_current_debug_location(loc),
            None => self.builder.unset_current_debug_location(),
        }
    }

    pub(crate) fn unsupported(
        &self,
        inst: InstructionValue<'ctx>,
        what: impl Into<String>,
    ) -> InstrumentError {
        InstrumentError::Unsupported {
            function: self.function_name(),
            location: llvm::location_text(inst),
            what: what.into(),
        }
    }

    pub(crate) fn builder_error(&self, err: BuilderError) -> InstrumentError {
        InstrumentError::Builder {
            function: self.function_name(),
            message: err.to_string(),
        }
    }

    /// The order argument of a load, store or locked call: the engine's code of the
    /// order the instruction was written with (`abi::ORDER_ARG_LOAD`).
    pub(crate) fn order_code(
        &self,
        ordering: inkwell::llvm_sys::LLVMAtomicOrdering,
    ) -> inkwell::values::IntValue<'ctx> {
        let code = tso_engine::memory_order(ordering).code();
        self.module
            .get_context()
            .i32_type()
            .const_int(u64::from(code), false)
    }

    /// Call a runtime function returning void at the current position.
    pub(crate) fn call_void(
        &self,
        callee: FunctionValue<'ctx>,
        args: &[BasicMetadataValueEnum<'ctx>],
    ) -> Result<(), InstrumentError> {
        self.builder
            .build_call(callee, args, "")
            .map_err(|e| self.builder_error(e))?;
        Ok(())
    }

    /// Call a runtime function returning a value at the current position.
    pub(crate) fn call_value(
        &self,
        callee: FunctionValue<'ctx>,
        args: &[BasicMetadataValueEnum<'ctx>],
    ) -> Result<BasicValueEnum<'ctx>, InstrumentError> {
        let site = self
            .builder
            .build_call(callee, args, "")
            .map_err(|e| self.builder_error(e))?;
        site.try_as_basic_value()
            .basic()
            .ok_or_else(|| InstrumentError::Builder {
                function: self.function_name(),
                message: "runtime function unexpectedly returns void".to_string(),
            })
    }

    /// `__tso_fence()` at the current position.
    pub(crate) fn fence(&mut self) -> Result<(), InstrumentError> {
        let fence = self.tso.fence()?;
        self.call_void(fence, &[])?;
        self.stats.fences += 1;
        Ok(())
    }

    /// `__tso_call_fence()` at the current position: the barrier of a library call.
    pub(crate) fn call_fence(&mut self) -> Result<(), InstrumentError> {
        let fence = self.tso.call_fence()?;
        self.call_void(fence, &[])?;
        self.stats.fences += 1;
        Ok(())
    }

    /// `__tso_evict(ptr)` at the current position.
    pub fn evict(&mut self, ptr: PointerValue<'ctx>) -> Result<(), InstrumentError> {
        let evict = self.tso.evict()?;
        self.call_void(evict, &[ptr.into()])?;
        self.stats.evicts += 1;
        Ok(())
    }

    /// The uninstrumented temporary of type `ty` (created at the top of the entry block).
    /// Leaves the builder unpositioned: callers position it afterwards.
    pub(crate) fn temp(
        &mut self,
        ty: BasicTypeEnum<'ctx>,
    ) -> Result<PointerValue<'ctx>, InstrumentError> {
        if let Some(ptr) = self.temps.get(&ty.as_type_ref()) {
            return Ok(*ptr);
        }
        let first = self
            .function
            .get_first_basic_block()
            .and_then(|bb| bb.get_first_instruction())
            .ok_or_else(|| InstrumentError::Builder {
                function: self.function_name(),
                message: "function has an empty entry block".to_string(),
            })?;
        self.builder.position_before(&first);
        self.builder.unset_current_debug_location();
        let ptr = self
            .builder
            .build_alloca(ty, "tso.tmp")
            .map_err(|e| self.builder_error(e))?;
        self.temps.insert(ty.as_type_ref(), ptr);
        Ok(ptr)
    }

    /// Bytes written by a store of `ty`.
    pub(crate) fn store_size(&self, ty: BasicTypeEnum<'ctx>) -> u64 {
        self.target.get_store_size(&ty)
    }

    /// Replace every use of `old` by `new`, then delete `old`.
    pub(crate) fn replace(&self, old: InstructionValue<'ctx>, new: BasicValueEnum<'ctx>) {
        llvm::replace_all_uses(old, new.as_value_ref());
        old.erase_from_basic_block();
    }
}
