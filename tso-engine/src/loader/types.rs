//! LLVM types → engine types, with sizes and field offsets from the data layout.

use super::Translator;
use crate::ir::{Ty, TyId};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::target::{LLVMABISizeOfType, LLVMOffsetOfElement, LLVMStoreSizeOfType};
use inkwell::llvm_sys::LLVMTypeKind;

impl Translator {
    pub(crate) fn ty(&mut self, t: LLVMTypeRef) -> TyId {
        if let Some(&id) = self.type_cache.get(&t) {
            return id;
        }
        let (ty, size) = unsafe { self.make_ty(t) };
        let id = self.types.intern(ty, size);
        let alloc = unsafe {
            if LLVMTypeIsSized(t) != 0 {
                LLVMABISizeOfType(self.td, t)
            } else {
                0
            }
        };
        self.types.set_alloc_size(id, alloc);
        self.type_cache.insert(t, id);
        id
    }

    /// ABI allocation size (what `alloca` and array strides use).
    pub(crate) fn alloc_size(&self, t: LLVMTypeRef) -> u64 {
        unsafe {
            if LLVMTypeIsSized(t) != 0 {
                LLVMABISizeOfType(self.td, t)
            } else {
                0
            }
        }
    }

    unsafe fn make_ty(&mut self, t: LLVMTypeRef) -> (Ty, u64) {
        let td = self.td;
        let store = || LLVMStoreSizeOfType(td, t);
        match LLVMGetTypeKind(t) {
            LLVMTypeKind::LLVMVoidTypeKind => (Ty::Void, 0),
            LLVMTypeKind::LLVMIntegerTypeKind => (Ty::Int(LLVMGetIntTypeWidth(t)), store()),
            LLVMTypeKind::LLVMPointerTypeKind => (Ty::Ptr, 8),
            LLVMTypeKind::LLVMFloatTypeKind => (Ty::F32, 4),
            LLVMTypeKind::LLVMDoubleTypeKind => (Ty::F64, 8),
            LLVMTypeKind::LLVMStructTypeKind => {
                let n = LLVMCountStructElementTypes(t);
                let mut fields = Vec::with_capacity(n as usize);
                for i in 0..n {
                    let ft = LLVMStructGetTypeAtIndex(t, i);
                    let off = LLVMOffsetOfElement(self.td, t, i);
                    let fid = self.ty(ft);
                    fields.push((off, fid));
                }
                let size = LLVMStoreSizeOfType(self.td, t);
                (
                    Ty::Struct {
                        fields: fields.into(),
                        size,
                    },
                    size,
                )
            }
            LLVMTypeKind::LLVMArrayTypeKind => {
                let et = LLVMGetElementType(t);
                let elem = self.ty(et);
                let len = LLVMGetArrayLength2(t);
                let stride = LLVMABISizeOfType(self.td, et);
                (Ty::Array { elem, len, stride }, store())
            }
            LLVMTypeKind::LLVMVectorTypeKind => {
                let et = LLVMGetElementType(t);
                let elem = self.ty(et);
                let len = LLVMGetVectorSize(t);
                (Ty::Vector { elem, len }, store())
            }
            LLVMTypeKind::LLVMHalfTypeKind => (Ty::Other("half".into()), 2),
            LLVMTypeKind::LLVMX86_FP80TypeKind => (Ty::Other("x86_fp80 (long double)".into()), 10),
            LLVMTypeKind::LLVMFP128TypeKind => (Ty::Other("fp128".into()), 16),
            other => (
                Ty::Other(format!("{other:?}")),
                if LLVMTypeIsSized(t) != 0 { store() } else { 0 },
            ),
        }
    }
}
