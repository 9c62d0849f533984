//! Declarations of the `__tso_*` runtime functions in the module being instrumented.

use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicMetadataTypeEnum, FunctionType, IntType};
use inkwell::values::FunctionValue;
use inkwell::AddressSpace;

use super::InstrumentError;
use crate::abi;

/// Lazily declared runtime functions (a module only gets the declarations it uses).
pub(crate) struct TsoFunctions<'a, 'ctx> {
    module: &'a Module<'ctx>,
}

impl<'a, 'ctx> TsoFunctions<'a, 'ctx> {
    pub(crate) fn new(module: &'a Module<'ctx>) -> Result<Self, InstrumentError> {
        Ok(TsoFunctions { module })
    }

    fn get(
        &self,
        name: &str,
        ty: FunctionType<'ctx>,
    ) -> Result<FunctionValue<'ctx>, InstrumentError> {
        match self.module.get_function(name) {
            Some(f) if f.get_type() == ty => Ok(f),
            Some(f) => Err(InstrumentError::ConflictingDeclaration {
                name: name.to_string(),
                found: f.get_type().print_to_string().to_string(),
            }),
            None => Ok(self.module.add_function(name, ty, Some(Linkage::External))),
        }
    }

    fn void_fn(&self, params: &[BasicMetadataTypeEnum<'ctx>]) -> FunctionType<'ctx> {
        self.module.get_context().void_type().fn_type(params, false)
    }

    fn ptr(&self) -> BasicMetadataTypeEnum<'ctx> {
        self.module
            .get_context()
            .ptr_type(AddressSpace::default())
            .into()
    }

    fn int(&self, bits: u32) -> BasicMetadataTypeEnum<'ctx> {
        carrier_int(self.module, bits).into()
    }

    /// `width` is an index into [`abi::ACCESS_WIDTHS`].
    pub(crate) fn load(&self, width: usize) -> Result<FunctionValue<'ctx>, InstrumentError> {
        let int = carrier_int(self.module, abi::ACCESS_WIDTHS[width]);
        self.get(
            abi::LOAD[width],
            int.fn_type(&[self.ptr(), self.int(32)], false),
        )
    }

    pub(crate) fn store(&self, width: usize) -> Result<FunctionValue<'ctx>, InstrumentError> {
        let ty = self.void_fn(&[
            self.ptr(),
            self.int(abi::ACCESS_WIDTHS[width]),
            self.int(32),
        ]);
        self.get(abi::STORE[width], ty)
    }

    pub(crate) fn store_locked(
        &self,
        width: usize,
    ) -> Result<FunctionValue<'ctx>, InstrumentError> {
        let ty = self.void_fn(&[
            self.ptr(),
            self.int(abi::ACCESS_WIDTHS[width]),
            self.int(32),
        ]);
        self.get(abi::STORE_LOCKED[width], ty)
    }

    pub(crate) fn rmw(&self, width: usize) -> Result<FunctionValue<'ctx>, InstrumentError> {
        let bits = abi::ACCESS_WIDTHS[width];
        let int = carrier_int(self.module, bits);
        self.get(
            abi::RMW[width],
            int.fn_type(
                &[self.ptr(), self.int(bits), self.int(32), self.int(32)],
                false,
            ),
        )
    }

    /// `__tso_cmpxchg_N`, or with `weak` `__tso_cmpxchg_weak_N` (which returns the
    /// value read and whether it stored).
    pub(crate) fn cmpxchg(
        &self,
        width: usize,
        weak: bool,
    ) -> Result<FunctionValue<'ctx>, InstrumentError> {
        let int = carrier_int(self.module, abi::ACCESS_WIDTHS[width]);
        let name = if weak {
            abi::CMPXCHG_WEAK[width]
        } else {
            abi::CMPXCHG[width]
        };
        self.get(name, self.cmpxchg_type(int, weak))
    }

    /// `__tso_cmpxchg_128`, or with `weak` `__tso_cmpxchg_weak_128`.
    pub(crate) fn cmpxchg_128(&self, weak: bool) -> Result<FunctionValue<'ctx>, InstrumentError> {
        let int = self.module.get_context().i128_type();
        let name = if weak {
            abi::CMPXCHG_WEAK_128
        } else {
            abi::CMPXCHG_128
        };
        self.get(name, self.cmpxchg_type(int, weak))
    }

    /// `(ptr, iN expected, iN desired, i32 order, i32 failure_order)`, returning `iN`,
    /// or `{iN, i1}` when `weak`.
    fn cmpxchg_type(&self, int: IntType<'ctx>, weak: bool) -> FunctionType<'ctx> {
        let params = [
            self.ptr(),
            int.into(),
            int.into(),
            self.int(32),
            self.int(32),
        ];
        if weak {
            let ctx = self.module.get_context();
            ctx.struct_type(&[int.into(), ctx.bool_type().into()], false)
                .fn_type(&params, false)
        } else {
            int.fn_type(&params, false)
        }
    }

    pub(crate) fn rmw_128(&self) -> Result<FunctionValue<'ctx>, InstrumentError> {
        let int = self.module.get_context().i128_type();
        self.get(
            abi::RMW_128,
            int.fn_type(&[self.ptr(), int.into(), self.int(32), self.int(32)], false),
        )
    }

    pub(crate) fn load_bytes(&self) -> Result<FunctionValue<'ctx>, InstrumentError> {
        self.get(
            abi::LOAD_BYTES,
            self.void_fn(&[self.ptr(), self.ptr(), self.int(64), self.int(32)]),
        )
    }

    pub(crate) fn store_bytes(&self) -> Result<FunctionValue<'ctx>, InstrumentError> {
        self.get(
            abi::STORE_BYTES,
            self.void_fn(&[self.ptr(), self.ptr(), self.int(64), self.int(32)]),
        )
    }

    pub(crate) fn fence(&self) -> Result<FunctionValue<'ctx>, InstrumentError> {
        self.get(abi::FENCE, self.void_fn(&[]))
    }

    pub(crate) fn fence_order(&self) -> Result<FunctionValue<'ctx>, InstrumentError> {
        self.get(abi::FENCE_ORDER, self.void_fn(&[self.int(32)]))
    }

    pub(crate) fn call_fence(&self) -> Result<FunctionValue<'ctx>, InstrumentError> {
        self.get(abi::CALL_FENCE, self.void_fn(&[]))
    }

    pub(crate) fn memcpy(&self) -> Result<FunctionValue<'ctx>, InstrumentError> {
        self.get(
            abi::MEMCPY,
            self.void_fn(&[self.ptr(), self.ptr(), self.int(64)]),
        )
    }

    pub(crate) fn memmove(&self) -> Result<FunctionValue<'ctx>, InstrumentError> {
        self.get(
            abi::MEMMOVE,
            self.void_fn(&[self.ptr(), self.ptr(), self.int(64)]),
        )
    }

    pub(crate) fn memset(&self) -> Result<FunctionValue<'ctx>, InstrumentError> {
        self.get(
            abi::MEMSET,
            self.void_fn(&[self.ptr(), self.int(8), self.int(64)]),
        )
    }

    pub fn evict(&self) -> Result<FunctionValue<'ctx>, InstrumentError> {
        self.get(abi::EVICT, self.void_fn(&[self.ptr()]))
    }
}

/// The integer type of a carrier width (8, 16, 32 or 64 bits; the op-code argument is i32).
pub(crate) fn carrier_int<'ctx>(module: &Module<'ctx>, bits: u32) -> IntType<'ctx> {
    let ctx = module.get_context();
    match bits {
        8 => ctx.i8_type(),
        16 => ctx.i16_type(),
        32 => ctx.i32_type(),
        // Callers only pass widths from `abi::ACCESS_WIDTHS`.
        _ => ctx.i64_type(),
    }
}
