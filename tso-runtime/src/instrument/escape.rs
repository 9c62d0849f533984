//! Static-local analysis ("+s"): which allocas never let their address escape, so no
//! other thread can ever access them and their loads/stores may stay plain.

use std::collections::HashSet;

use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::values::{AsValueRef, FunctionValue, InstructionOpcode, InstructionValue};

use super::llvm;

/// Result of the analysis for one function.
pub(crate) struct Locals<'ctx> {
    /// Non-escaping allocas and the GEPs derived from them.
    static_addresses: HashSet<LLVMValueRef>,
    /// Allocas that are instrumented (and must be evicted when the frame dies).
    pub escaping_allocas: Vec<InstructionValue<'ctx>>,
    pub static_allocas: usize,
}

impl<'ctx> Locals<'ctx> {
    /// Whether an access through `ptr` targets a static local (stays plain).
    pub(crate) fn is_static_address(&self, ptr: LLVMValueRef) -> bool {
        self.static_addresses.contains(&ptr)
    }

    /// Whether `ptr` is an instrumented alloca of this function.
    pub(crate) fn is_instrumented_alloca(&self, ptr: LLVMValueRef) -> bool {
        self.escaping_allocas
            .iter()
            .any(|a| a.as_value_ref() == ptr)
    }
}

/// Classify every alloca of `function`. With `enabled == false` every alloca escapes.
pub(crate) fn analyse<'ctx>(function: FunctionValue<'ctx>, enabled: bool) -> Locals<'ctx> {
    let mut locals = Locals {
        static_addresses: HashSet::new(),
        escaping_allocas: Vec::new(),
        static_allocas: 0,
    };
    let allocas = function
        .get_basic_block_iter()
        .flat_map(|bb| bb.get_instructions())
        .filter(|i| i.get_opcode() == InstructionOpcode::Alloca);
    for alloca in allocas {
        match enabled
            .then(|| derived_addresses(alloca.as_value_ref()))
            .flatten()
        {
            Some(addresses) => {
                locals.static_addresses.extend(addresses);
                locals.static_allocas += 1;
            }
            None => locals.escaping_allocas.push(alloca),
        }
    }
    locals
}

/// The alloca and all GEPs derived from it, or `None` if the address escapes.
fn derived_addresses(alloca: LLVMValueRef) -> Option<Vec<LLVMValueRef>> {
    let mut addresses = vec![alloca];
    let mut next = 0;
    while let Some(&address) = addresses.get(next) {
        next += 1;
        for user in llvm::users(address) {
            match use_kind(user, address) {
                UseKind::Access => {}
                UseKind::Derived => addresses.push(user),
                UseKind::Escape => return None,
            }
        }
    }
    Some(addresses)
}

enum UseKind {
    /// The address is only dereferenced (or marked by a lifetime/debug intrinsic).
    Access,
    /// A GEP based on the address: a new address to follow.
    Derived,
    Escape,
}

fn use_kind(user: LLVMValueRef, address: LLVMValueRef) -> UseKind {
    // SAFETY: `user` is a live instruction using `address`.
    let inst = unsafe { InstructionValue::new(user) };
    let others_are_not =
        |from: u32| (from..llvm::num_operands(user)).all(|i| llvm::operand(user, i) != address);
    match inst.get_opcode() {
        InstructionOpcode::Load => UseKind::Access,
        // Storing the address itself (operand 0) publishes it.
        InstructionOpcode::Store if llvm::operand(user, 0) != address => UseKind::Access,
        InstructionOpcode::GetElementPtr
            if llvm::operand(user, 0) == address && others_are_not(1) =>
        {
            UseKind::Derived
        }
        InstructionOpcode::Call => match llvm::called_function(inst) {
            Some(f) => {
                let name = f.get_name().to_string_lossy();
                if name.starts_with("llvm.lifetime.") || name.starts_with("llvm.dbg.") {
                    UseKind::Access
                } else {
                    UseKind::Escape
                }
            }
            None => UseKind::Escape,
        },
        _ => UseKind::Escape,
    }
}
