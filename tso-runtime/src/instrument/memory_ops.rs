//! Plain and atomic loads and stores, and the memcpy/memmove/memset intrinsics.

use inkwell::llvm_sys::LLVMAtomicOrdering;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{AsValueRef, BasicValueEnum, InstructionOpcode, InstructionValue};

use super::calls;
use super::escape::Locals;
use super::llvm;
use super::rewriter::Rewriter;
use super::scalar::{self, Carrier};
use super::InstrumentError;

pub(crate) fn rewrite_load<'ctx>(
    rw: &mut Rewriter<'_, 'ctx>,
    load: InstructionValue<'ctx>,
    locals: &Locals<'ctx>,
) -> Result<(), InstrumentError> {
    let address = scalar::address_operand(rw, load, 0)?;
    if locals.is_static_address(address.as_value_ref()) {
        rw.stats.static_local_accesses += 1;
        return Ok(());
    }
    if llvm::is_constant_global_address(address.as_value_ref()) {
        rw.stats.constant_loads += 1;
        return Ok(());
    }
    let ty = BasicTypeEnum::try_from(load.get_type())
        .map_err(|_| rw.unsupported(load, "load of a non-first-class type"))?;
    let value = match scalar::carrier_of(rw, ty).map_err(|what| rw.unsupported(load, what))? {
        Carrier::Int { width, ty, .. } => {
            rw.at(load);
            let callee = rw.tso.load(width)?;
            let order = rw.order_code(llvm::ordering(load));
            let carried = rw.call_value(callee, &[address.into(), order.into()])?;
            scalar::from_int(rw, carried, ty)?
        }
        Carrier::Bytes { size } => {
            let temp = rw.temp(ty)?;
            rw.at(load);
            let callee = rw.tso.load_bytes()?;
            let n = rw.module.get_context().i64_type().const_int(size, false);
            let order = rw.order_code(llvm::ordering(load));
            rw.call_void(
                callee,
                &[temp.into(), address.into(), n.into(), order.into()],
            )?;
            rw.stats.byte_accesses += 1;
            rw.builder
                .build_load(ty, temp, "")
                .map_err(|e| rw.builder_error(e))?
        }
    };
    rw.replace(load, value);
    rw.stats.loads += 1;
    Ok(())
}

/// A store becomes `__tso_store_N` (or `__tso_store_bytes`), a write into the thread's
/// buffer. Outside C11, a seq_cst one, and one that a full fence follows with no other
/// access to memory between (`fence_follows`), become `__tso_store_locked_N`, x86's
/// `xchg`: drain the buffer, then write memory, in one step.
///
/// Why not `__tso_store_N` and a fence (`mov; mfence`, the other code x86 compilers
/// emit for a seq_cst store, and the same behaviour as `xchg`): the search would also
/// stop between the two, where the store waits in the buffer of a thread whose next
/// step drains it. Those states add nothing. Until the drain, another thread's load
/// either does not see the store, as if the locked store came after it, or sees it by
/// flushing it, and flushing the
/// newest entry flushes every older one (buffers are FIFO), which leaves the buffer
/// empty and the fence with nothing to do, as if the locked store had run just before
/// that load. So every run of the pair is a run of the locked store with the same
/// values read, and the states in between need not be stored. Wider values have no
/// locked form (x86 has no wider `xchg`) and keep the fence.
pub(crate) fn rewrite_store<'ctx>(
    rw: &mut Rewriter<'_, 'ctx>,
    store: InstructionValue<'ctx>,
    locals: &Locals<'ctx>,
    fence_after: bool,
    keep_orders: bool,
) -> Result<(), InstrumentError> {
    let address = scalar::address_operand(rw, store, 1)?;
    if locals.is_static_address(address.as_value_ref()) {
        rw.stats.static_local_accesses += 1;
        return Ok(());
    }
    if llvm::is_nontemporal(store) {
        // Streaming stores are weakly ordered on x86 (later stores may pass them until
        // an sfence): outside x86-TSO. Treating one as an ordinary store would pass a
        // program that publishes its data with one and no sfence.
        return Err(rw.unsupported(
            store,
            "non-temporal store (`_mm_stream_*`, `__builtin_nontemporal_store`): x86 does \
             not order it like other stores, and the checker does not model its ordering",
        ));
    }
    let value = scalar::value_operand(rw, store, 0)?;
    let ordering = llvm::ordering(store);
    let seq_cst = ordering == LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent;
    let order = rw.order_code(ordering);
    // A seq_cst store as x86 compilers emit it, `xchg`, and a store a fence follows:
    // one locked step.
    let locked = !keep_orders && (seq_cst || fence_follows(store, locals));
    // Whether the store became a locked one, which drains the buffer itself.
    let fenced = match scalar::carrier_of(rw, value.get_type())
        .map_err(|what| rw.unsupported(store, what))?
    {
        Carrier::Int { width, int, .. } => {
            rw.at(store);
            let carried = scalar::to_int(rw, value, int)?;
            let callee = if locked {
                rw.tso.store_locked(width)?
            } else {
                rw.tso.store(width)?
            };
            rw.call_void(callee, &[address.into(), carried.into(), order.into()])?;
            locked
        }
        Carrier::Bytes { size } => {
            let temp = rw.temp(value.get_type())?;
            rw.at(store);
            rw.builder
                .build_store(temp, value)
                .map_err(|e| rw.builder_error(e))?;
            let callee = rw.tso.store_bytes()?;
            let n = rw.module.get_context().i64_type().const_int(size, false);
            rw.call_void(
                callee,
                &[address.into(), temp.into(), n.into(), order.into()],
            )?;
            rw.stats.byte_accesses += 1;
            false
        }
    };
    if fenced {
        // The locked store drained the buffer: a fence after it would do nothing.
    } else if seq_cst && !keep_orders {
        // No locked form this wide: `mov; mfence` (see `rewrite_store`).
        rw.fence()?;
    } else if fence_after {
        rw.fence()?;
        rw.stats.placed_fences += 1;
    }
    store.erase_from_basic_block();
    rw.stats.stores += 1;
    Ok(())
}

/// Whether a full fence (`fence seq_cst`, an `mfence` in asm, the fence before a library
/// call) follows `store` with nothing between that touches memory, other than the
/// static locals the pass leaves alone (invisible to other threads) and debug
/// intrinsics. Division is not passed over: it may trap between the two. An
/// unconditional branch is followed (its target's phis only copy registers); a
/// conditional one, or a block met twice, stops the search. A block the pass has
/// already rewritten holds `__tso_*` calls, which stop it too.
fn fence_follows(store: InstructionValue<'_>, locals: &Locals<'_>) -> bool {
    use InstructionOpcode as Op;
    let mut next = store.get_next_instruction();
    let mut entered = Vec::new();
    while let Some(inst) = next {
        let static_local = |i| locals.is_static_address(llvm::operand(inst.as_value_ref(), i));
        match inst.get_opcode() {
            Op::Load if static_local(0) => {}
            Op::Store if static_local(1) => {}
            Op::Fence => {
                return llvm::ordering(inst)
                    == LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent
                    && !llvm::is_single_thread(inst)
            }
            Op::Call | Op::Invoke => {
                let debug = llvm::called_function(inst)
                    .is_some_and(|f| f.get_name().to_bytes().starts_with(b"llvm.dbg."));
                if !debug {
                    return calls::fence_before(inst);
                }
            }
            Op::Add
            | Op::Sub
            | Op::Mul
            | Op::And
            | Op::Or
            | Op::Xor
            | Op::Shl
            | Op::LShr
            | Op::AShr
            | Op::FAdd
            | Op::FSub
            | Op::FMul
            | Op::FNeg
            | Op::ICmp
            | Op::FCmp
            | Op::Select
            | Op::GetElementPtr
            | Op::Trunc
            | Op::ZExt
            | Op::SExt
            | Op::FPTrunc
            | Op::FPExt
            | Op::FPToSI
            | Op::FPToUI
            | Op::SIToFP
            | Op::UIToFP
            | Op::PtrToInt
            | Op::IntToPtr
            | Op::BitCast
            | Op::AddrSpaceCast
            | Op::ExtractValue
            | Op::InsertValue
            | Op::ExtractElement
            | Op::InsertElement
            | Op::ShuffleVector
            | Op::Freeze => {}
            Op::Br if inst.get_num_operands() == 1 => {
                let Some(target) = inst.get_operand(0).and_then(|op| op.block()) else {
                    return false;
                };
                if entered.contains(&target) {
                    return false;
                }
                entered.push(target);
                next = target
                    .get_instructions()
                    .find(|i| i.get_opcode() != Op::Phi);
                continue;
            }
            _ => return false,
        }
        next = inst.get_next_instruction();
    }
    false
}

/// Which `__tso_mem*` function an `llvm.mem*` intrinsic maps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MemIntrinsic {
    Copy,
    Move,
    Set,
}

impl MemIntrinsic {
    /// Recognises `llvm.memcpy.*`, `llvm.memcpy.inline.*`, `llvm.memmove.*`,
    /// `llvm.memset.*`, `llvm.memset.inline.*` and their `.element.unordered.atomic`
    /// forms (all take `dst, src|val, len` first).
    pub(crate) fn from_name(name: &str) -> Option<MemIntrinsic> {
        let rest = name.strip_prefix("llvm.")?;
        if rest.starts_with("memcpy.") {
            Some(MemIntrinsic::Copy)
        } else if rest.starts_with("memmove.") {
            Some(MemIntrinsic::Move)
        } else if rest.starts_with("memset.") {
            Some(MemIntrinsic::Set)
        } else {
            None
        }
    }
}

pub(crate) fn rewrite_mem_intrinsic<'ctx>(
    rw: &mut Rewriter<'_, 'ctx>,
    call: InstructionValue<'ctx>,
    kind: MemIntrinsic,
    fence_after: bool,
) -> Result<(), InstrumentError> {
    let dst = scalar::address_operand(rw, call, 0)?;
    let second = scalar::value_operand(rw, call, 1)?;
    let BasicValueEnum::IntValue(len) = scalar::value_operand(rw, call, 2)? else {
        return Err(rw.unsupported(call, "memory intrinsic with a non-integer length"));
    };
    rw.at(call);
    let i64_type = rw.module.get_context().i64_type();
    let len = match len.get_type().get_bit_width() {
        64 => len,
        w if w < 64 => rw
            .builder
            .build_int_z_extend(len, i64_type, "")
            .map_err(|e| rw.builder_error(e))?,
        _ => rw
            .builder
            .build_int_truncate(len, i64_type, "")
            .map_err(|e| rw.builder_error(e))?,
    };
    let callee = match kind {
        MemIntrinsic::Copy => rw.tso.memcpy()?,
        MemIntrinsic::Move => rw.tso.memmove()?,
        MemIntrinsic::Set => rw.tso.memset()?,
    };
    if kind != MemIntrinsic::Set {
        scalar::address_operand(rw, call, 1)?;
    }
    rw.call_void(callee, &[dst.into(), second.into(), len.into()])?;
    if fence_after {
        rw.fence()?;
        rw.stats.placed_fences += 1;
    }
    call.erase_from_basic_block();
    rw.stats.mem_intrinsics += 1;
    Ok(())
}
