//! Calls: memory intrinsics, lifetime ends, inline asm, and fences around external
//! (library) calls with eviction before the functions that release memory.

use inkwell::values::{AsValueRef, BasicValueEnum, InstructionOpcode, InstructionValue};

use super::escape::Locals;
use super::frame;
use super::llvm;
use super::memory_ops::{self, MemIntrinsic};
use super::rewriter::Rewriter;
use super::InstrumentError;
use crate::abi;
use tso_engine::{asm_effect, AsmEffect};

/// Functions whose first argument is an object they release (`realloc` may release it).
const RELEASING: &[&str] = &[
    "free",
    "realloc",
    "reallocarray",
    "_ZdlPv",
    "_ZdlPvm",
    "_ZdaPv",
    "_ZdaPvm",
    "_ZdlPvSt11align_val_t",
    "_ZdlPvmSt11align_val_t",
    "_ZdaPvSt11align_val_t",
    "_ZdaPvmSt11align_val_t",
];

/// Intrinsics that access memory in ways the runtime has no function for.
const UNSUPPORTED_MEMORY_INTRINSICS: &[&str] = &[
    "llvm.masked.load.",
    "llvm.masked.store.",
    "llvm.masked.gather.",
    "llvm.masked.scatter.",
    "llvm.masked.expandload.",
    "llvm.masked.compressstore.",
    "llvm.vp.load.",
    "llvm.vp.store.",
    "llvm.vp.gather.",
    "llvm.vp.scatter.",
    "llvm.experimental.vp.strided.",
];

/// Library functions whose real implementations hold no locked instruction and no
/// fence (glibc's string, character and string-formatting functions): on x86 their loads may pass the
/// caller's buffered stores, so they are called without fences, and the runtime
/// routes their memory accesses through the store buffers instead
/// (`runtime::natives::BufferedData`). Fencing them would hide store-buffering bugs.
/// Every name here must be a native that makes data accesses (tested).
pub const UNFENCED_LIBRARY: &[&str] = &[
    "memcpy",
    "memmove",
    "memset",
    "memcmp",
    "memchr",
    "memrchr",
    "bcmp",
    "bzero",
    "strlen",
    "strnlen",
    "strcmp",
    "strncmp",
    "strcasecmp",
    "strncasecmp",
    "strcpy",
    "strncpy",
    "stpcpy",
    "strcat",
    "strncat",
    "strchr",
    "strrchr",
    "strstr",
    "strspn",
    "strcspn",
    "strpbrk",
    "strtok_r",
    "strtok",
    "atoi",
    "atol",
    "atoll",
    "strtol",
    "strtoll",
    "strtoul",
    "strtoull",
    "toupper",
    "tolower",
    // Formatting into a string: glibc's string streams take no lock.
    "sprintf",
    "snprintf",
    "rand_r",
    "bsearch",
];

/// Declared functions called without fences: the runtime, the checker's own
/// primitives, and the library functions that have none (`UNFENCED_LIBRARY`).
fn is_unfenced(name: &str) -> bool {
    UNFENCED_LIBRARY.contains(&name)
        || name.starts_with(abi::PREFIX)
        || name.starts_with("llvm.")
        || name == "tso_choose"
        || name.starts_with("__VERIFIER_nondet_")
        || name == "__VERIFIER_assume"
}

/// Whether [`rewrite_call`] puts a full fence before `call`: a call of a library
/// function that is not unfenced, or an `mfence` in inline asm.
pub(crate) fn fence_before(call: InstructionValue<'_>) -> bool {
    if let Some(text) = llvm::inline_asm_text(call) {
        return matches!(asm_effect(&text), AsmEffect::FullFence)
            && call.get_type().is_void_type()
            && call.get_opcode() == InstructionOpcode::Call;
    }
    llvm::called_function(call).is_some_and(|callee| {
        let name = callee.get_name().to_string_lossy();
        !name.starts_with("llvm.")
            && fenced_library(callee, &name)
            && call.get_opcode() != InstructionOpcode::CallBr
    })
}

/// A declared function (no body here) that is not called without fences.
fn fenced_library(callee: inkwell::values::FunctionValue<'_>, name: &str) -> bool {
    callee.count_basic_blocks() == 0 && !is_unfenced(name)
}

pub(crate) fn rewrite_call<'ctx>(
    rw: &mut Rewriter<'_, 'ctx>,
    call: InstructionValue<'ctx>,
    locals: &Locals<'ctx>,
    placed_fence: bool,
) -> Result<(), InstrumentError> {
    if let Some(text) = llvm::inline_asm_text(call) {
        return rewrite_asm(rw, call, &text);
    }
    let Some(callee) = llvm::called_function(call) else {
        return Ok(()); // indirect call: callee unknown, no fences (documented gap)
    };
    let name = callee.get_name().to_string_lossy().into_owned();
    if name.starts_with("llvm.") {
        return rewrite_intrinsic(rw, call, &name, locals, placed_fence);
    }
    if !fenced_library(callee, &name) {
        return Ok(());
    }
    if call.get_opcode() == InstructionOpcode::CallBr {
        return Err(rw.unsupported(call, format!("callbr to `{name}`")));
    }
    rw.at(call);
    rw.call_fence()?;
    if RELEASING.contains(&name.as_str()) {
        match call.get_operand(0).and_then(|op| op.value()) {
            Some(BasicValueEnum::PointerValue(ptr)) => rw.evict(ptr)?,
            _ => return Err(rw.unsupported(call, format!("`{name}` without a pointer argument"))),
        }
    }
    // Nothing may sit between a `musttail` call and its `ret`: the callee's own
    // synchronisation and the caller's caller cover it.
    if !frame::is_musttail(call) {
        fence_after(rw, call)?;
    }
    rw.stats.external_calls += 1;
    Ok(())
}

/// `__tso_fence()` after a call; for an invoke, at the top of its normal destination.
fn fence_after<'ctx>(
    rw: &mut Rewriter<'_, 'ctx>,
    call: InstructionValue<'ctx>,
) -> Result<(), InstrumentError> {
    if call.get_opcode() == InstructionOpcode::Invoke {
        let normal = call
            .get_operands()
            .filter_map(|op| op.and_then(|op| op.block()))
            .next()
            .ok_or_else(|| rw.unsupported(call, "invoke without a normal destination"))?;
        let first = normal
            .get_instructions()
            .find(|i| i.get_opcode() != InstructionOpcode::Phi)
            .ok_or_else(|| rw.unsupported(call, "empty invoke destination"))?;
        rw.builder.position_before(&first);
        rw.take_location_of(call);
    } else {
        rw.after(call)?;
    }
    rw.call_fence()
}

fn rewrite_intrinsic<'ctx>(
    rw: &mut Rewriter<'_, 'ctx>,
    call: InstructionValue<'ctx>,
    name: &str,
    locals: &Locals<'ctx>,
    placed_fence: bool,
) -> Result<(), InstrumentError> {
    if let Some(kind) = MemIntrinsic::from_name(name) {
        return memory_ops::rewrite_mem_intrinsic(rw, call, kind, placed_fence);
    }
    if let Some(text) = x86_intrinsic_asm(name) {
        return rewrite_asm(rw, call, text);
    }
    if name.starts_with("llvm.lifetime.end.") {
        // The slot's memory is dead until a later lifetime.start: no delayed store may land in it.
        if let Some(BasicValueEnum::PointerValue(ptr)) =
            call.get_operand(1).and_then(|op| op.value())
        {
            if locals.is_instrumented_alloca(ptr.as_value_ref()) {
                rw.at(call);
                rw.evict(ptr)?;
            }
        }
        return Ok(());
    }
    if UNSUPPORTED_MEMORY_INTRINSICS
        .iter()
        .any(|p| name.starts_with(p))
    {
        return Err(rw.unsupported(call, format!("memory intrinsic `{name}`")));
    }
    Ok(())
}

/// The x86 fence and spin-hint intrinsics (`_mm_mfence`, `_mm_lfence`, `_mm_sfence`,
/// `_mm_pause`) are the instructions of the same name: treated as that inline asm.
fn x86_intrinsic_asm(name: &str) -> Option<&'static str> {
    match name {
        "llvm.x86.sse2.mfence" => Some("mfence"),
        "llvm.x86.sse2.lfence" => Some("lfence"),
        "llvm.x86.sse.sfence" => Some("sfence"),
        "llvm.x86.sse2.pause" => Some("pause"),
        _ => None,
    }
}

fn rewrite_asm<'ctx>(
    rw: &mut Rewriter<'_, 'ctx>,
    call: InstructionValue<'ctx>,
    text: &str,
) -> Result<(), InstrumentError> {
    let effect = asm_effect(text);
    let has_result = !call.get_type().is_void_type();
    match effect {
        AsmEffect::Harmless => Ok(()),
        AsmEffect::FullFence | AsmEffect::NoOpFence
            if has_result || call.get_opcode() != InstructionOpcode::Call =>
        {
            Err(rw.unsupported(call, format!("inline asm with outputs: {text:?}")))
        }
        AsmEffect::FullFence => {
            rw.at(call);
            rw.fence()?;
            call.erase_from_basic_block();
            Ok(())
        }
        AsmEffect::NoOpFence => {
            rw.stats.removed_fences += 1;
            call.erase_from_basic_block();
            Ok(())
        }
        AsmEffect::Unknown => Err(rw.unsupported(call, format!("inline asm {text:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unfenced_library_functions_access_memory_through_the_buffers() {
        // Called without fences, a function that read memory directly would miss its
        // own thread's buffered stores: each must be a data-access native, whose reads
        // and writes of shared memory go through the runtime's data view.
        let natives = tso_engine::Natives::standard();
        for name in UNFENCED_LIBRARY {
            assert!(natives.makes_data_accesses(name), "{name}");
        }
    }

    #[test]
    fn x86_fence_intrinsics_are_their_instructions() {
        let intrinsic = |n| x86_intrinsic_asm(n).map(asm_effect);
        assert_eq!(
            intrinsic("llvm.x86.sse2.mfence"),
            Some(AsmEffect::FullFence)
        );
        assert_eq!(
            intrinsic("llvm.x86.sse2.lfence"),
            Some(AsmEffect::NoOpFence)
        );
        assert_eq!(intrinsic("llvm.x86.sse.sfence"), Some(AsmEffect::NoOpFence));
        assert_eq!(intrinsic("llvm.x86.sse2.pause"), Some(AsmEffect::Harmless));
        assert_eq!(intrinsic("llvm.x86.sse2.clflush"), None);
    }

    #[test]
    fn checker_primitives_are_not_fenced() {
        assert!(is_unfenced("__tso_fence"));
        assert!(is_unfenced("tso_choose"));
        assert!(is_unfenced("__VERIFIER_nondet_int"));
        assert!(is_unfenced("__VERIFIER_assume"));
        assert!(!is_unfenced("pthread_mutex_lock"));
        assert!(!is_unfenced("malloc"));
        assert!(!is_unfenced("__VERIFIER_error"));
    }
}
