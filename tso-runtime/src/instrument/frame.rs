//! Function return: the frame's instrumented allocas die, so their entries are evicted.

use std::collections::HashSet;

use inkwell::basic_block::BasicBlock;
use inkwell::values::{InstructionOpcode, InstructionValue, PointerValue};

use super::escape::Locals;
use super::rewriter::Rewriter;
use super::InstrumentError;

pub(crate) fn evict_before_return<'ctx>(
    rw: &mut Rewriter<'_, 'ctx>,
    ret: InstructionValue<'ctx>,
    locals: &Locals<'ctx>,
) -> Result<(), InstrumentError> {
    if locals.escaping_allocas.is_empty() {
        return Ok(());
    }
    // A `musttail` call must stay immediately before its `ret`.
    let anchor = match ret.get_previous_instruction() {
        Some(prev) if is_musttail(prev) => prev,
        _ => ret,
    };
    let Some(ret_block) = ret.get_parent() else {
        return Ok(());
    };
    for &alloca in &locals.escaping_allocas {
        let Some(alloca_block) = alloca.get_parent() else {
            continue;
        };
        // An alloca in a block that does not dominate this return (a VLA on another
        // path) is not reachable by name here; see "Known gaps" in the module docs.
        if !dominates(rw, alloca_block, ret_block) {
            continue;
        }
        let ptr = PointerValue::try_from(alloca)
            .map_err(|_| rw.unsupported(alloca, "alloca is not a pointer"))?;
        rw.at(anchor);
        rw.take_location_of(ret);
        rw.evict(ptr)?;
    }
    Ok(())
}

pub(crate) fn is_musttail(inst: InstructionValue<'_>) -> bool {
    inst.get_opcode() == InstructionOpcode::Call
        && matches!(inst.get_tail_call_kind(), Ok(kind) if kind == inkwell::values::LLVMTailCallKind::LLVMTailCallKindMustTail)
}

/// `block` dominates `target` iff `target` cannot be reached from the entry without `block`.
fn dominates<'ctx>(
    rw: &Rewriter<'_, 'ctx>,
    block: BasicBlock<'ctx>,
    target: BasicBlock<'ctx>,
) -> bool {
    let Some(entry) = rw.function.get_first_basic_block() else {
        return false;
    };
    if block == entry || block == target {
        return true;
    }
    let mut seen = HashSet::from([entry]);
    let mut stack = vec![entry];
    while let Some(bb) = stack.pop() {
        if bb == target {
            return false;
        }
        for succ in successors(bb) {
            if succ != block && seen.insert(succ) {
                stack.push(succ);
            }
        }
    }
    true
}

fn successors(bb: BasicBlock<'_>) -> Vec<BasicBlock<'_>> {
    bb.get_terminator()
        .map(|t| {
            t.get_operands()
                .filter_map(|op| op.and_then(|op| op.block()))
                .collect()
        })
        .unwrap_or_default()
}
