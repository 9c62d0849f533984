//! Thin safe wrappers over the LLVM C API for what inkwell 0.11 does not expose
//! (called value, inline asm text, sync scope, use lists, debug-location text).

use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::debuginfo as di;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::llvm_sys::LLVMAtomicOrdering;
use inkwell::values::{AsValueRef, FunctionValue, InstructionValue};

/// Does the instruction carry `!nontemporal` (a streaming store, `_mm_stream_*`)?
pub(crate) fn is_nontemporal(inst: InstructionValue<'_>) -> bool {
    const KIND: &str = "nontemporal";
    // SAFETY: `inst` is a live instruction; the kind name is a valid buffer of its length.
    unsafe {
        let kind = c::LLVMGetMDKindID(KIND.as_ptr().cast(), KIND.len() as u32);
        !c::LLVMGetMetadata(inst.as_value_ref(), kind).is_null()
    }
}

/// The callee operand of a call/invoke/callbr.
pub(crate) fn called_value(call: InstructionValue<'_>) -> LLVMValueRef {
    // SAFETY: `call` is a live call-like instruction of a live module.
    unsafe { c::LLVMGetCalledValue(call.as_value_ref()) }
}

/// The directly called function, if the callee is a function (not asm, not a pointer).
pub(crate) fn called_function<'ctx>(call: InstructionValue<'ctx>) -> Option<FunctionValue<'ctx>> {
    let callee = called_value(call);
    // SAFETY: `callee` is a live value; LLVMIsAFunction returns null for non-functions.
    unsafe {
        if callee.is_null() || c::LLVMIsAFunction(callee).is_null() {
            None
        } else {
            FunctionValue::new(callee)
        }
    }
}

/// The assembly text if the callee is inline asm.
pub(crate) fn inline_asm_text(call: InstructionValue<'_>) -> Option<String> {
    let callee = called_value(call);
    // SAFETY: `callee` is live; the returned buffer is owned by LLVM and copied at once.
    unsafe {
        if callee.is_null() || c::LLVMIsAInlineAsm(callee).is_null() {
            return None;
        }
        let mut len = 0usize;
        let ptr = c::LLVMGetInlineAsmAsmString(callee, &mut len);
        Some(copy_text(ptr, len))
    }
}

/// # Safety
/// `ptr` is null or points to `len` readable bytes.
pub(crate) unsafe fn copy_text(ptr: *const std::os::raw::c_char, len: usize) -> String {
    if ptr.is_null() {
        return String::new();
    }
    let bytes = std::slice::from_raw_parts(ptr as *const u8, len);
    String::from_utf8_lossy(bytes).into_owned()
}

/// Atomic ordering of a load, store, atomicrmw or fence.
pub(crate) fn ordering(inst: InstructionValue<'_>) -> LLVMAtomicOrdering {
    // SAFETY: only called on load/store/atomicrmw/fence, which carry an ordering.
    unsafe { c::LLVMGetOrdering(inst.as_value_ref()) }
}

/// A cmpxchg's ordering on success (the C11 order it was written with).
pub(crate) fn cmpxchg_success_ordering(inst: InstructionValue<'_>) -> LLVMAtomicOrdering {
    // SAFETY: only called on cmpxchg instructions.
    unsafe { c::LLVMGetCmpXchgSuccessOrdering(inst.as_value_ref()) }
}

pub(crate) fn cmpxchg_failure_ordering(inst: InstructionValue<'_>) -> LLVMAtomicOrdering {
    // SAFETY: only called on cmpxchg instructions.
    unsafe { c::LLVMGetCmpXchgFailureOrdering(inst.as_value_ref()) }
}

/// Whether a cmpxchg is `weak` (may fail although the values are equal).
pub(crate) fn is_weak_cmpxchg(inst: InstructionValue<'_>) -> bool {
    // SAFETY: only called on cmpxchg instructions.
    unsafe { c::LLVMGetWeak(inst.as_value_ref()) != 0 }
}

/// Whether an atomic instruction or fence is `syncscope("singlethread")`.
pub(crate) fn is_single_thread(inst: InstructionValue<'_>) -> bool {
    // SAFETY: only called on fences and atomic instructions.
    unsafe { c::LLVMIsAtomicSingleThread(inst.as_value_ref()) != 0 }
}

/// Whether `ptr` is a constant global, or a constant GEP into one.
pub(crate) fn is_constant_global_address(ptr: LLVMValueRef) -> bool {
    // SAFETY: `ptr` is a live value; the IsA queries return null on mismatch.
    unsafe {
        let mut base = ptr;
        while !c::LLVMIsAConstantExpr(base).is_null() && c::LLVMGetNumOperands(base) > 0 {
            base = c::LLVMGetOperand(base, 0);
        }
        !c::LLVMIsAGlobalVariable(base).is_null() && c::LLVMIsGlobalConstant(base) != 0
    }
}

/// Raw operand `index` of an instruction.
pub(crate) fn operand(inst: LLVMValueRef, index: u32) -> LLVMValueRef {
    // SAFETY: callers pass an index below the instruction's operand count.
    unsafe { c::LLVMGetOperand(inst, index) }
}

pub(crate) fn num_operands(inst: LLVMValueRef) -> u32 {
    // SAFETY: `inst` is a live user.
    unsafe { c::LLVMGetNumOperands(inst) as u32 }
}

/// Every instruction that uses `value` (one entry per use).
pub(crate) fn users(value: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    // SAFETY: walking the use list of a live value without modifying it.
    unsafe {
        let mut u = c::LLVMGetFirstUse(value);
        while !u.is_null() {
            out.push(c::LLVMGetUser(u));
            u = c::LLVMGetNextUse(u);
        }
    }
    out
}

/// Replace every use of `old` by `new` (types must match).
pub(crate) fn replace_all_uses(old: InstructionValue<'_>, new: LLVMValueRef) {
    // SAFETY: both values are live and of the same type (guaranteed by the callers).
    unsafe { c::LLVMReplaceAllUsesWith(old.as_value_ref(), new) }
}

/// "file:line:col" of an instruction's debug location, or "<no debug location>".
pub(crate) fn location_text(inst: InstructionValue<'_>) -> String {
    // SAFETY: reading metadata of a live instruction; strings are copied at once.
    unsafe {
        let loc = di::LLVMInstructionGetDebugLoc(inst.as_value_ref());
        if loc.is_null() {
            return "<no debug location>".to_string();
        }
        let line = di::LLVMDILocationGetLine(loc);
        let col = di::LLVMDILocationGetColumn(loc);
        let scope = di::LLVMDILocationGetScope(loc);
        let file = if scope.is_null() {
            std::ptr::null_mut()
        } else {
            di::LLVMDIScopeGetFile(scope)
        };
        let name = if file.is_null() {
            String::from("?")
        } else {
            let mut len = 0u32;
            let ptr = di::LLVMDIFileGetFilename(file, &mut len);
            copy_text(ptr, len as usize)
        };
        format!("{name}:{line}:{col}")
    }
}
