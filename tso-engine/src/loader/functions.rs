//! Function bodies: LLVM instructions → engine instructions.

use super::asm::AsmEffect;
use super::{intrinsics, print_value, value_name, Translator};
use crate::ir::*;
use crate::value::Val;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{
    LLVMAtomicOrdering, LLVMAtomicRMWBinOp, LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate,
    LLVMTypeKind,
};
use std::collections::HashMap;

struct FnCtx {
    regs: HashMap<LLVMValueRef, Reg>,
    blocks: HashMap<LLVMBasicBlockRef, BlockId>,
    /// Allocas declared as source variables, with their index in `DebugInfo::locals`.
    vars: HashMap<LLVMValueRef, u32>,
}

impl Translator {
    pub(crate) unsafe fn declare_function(&mut self, f: LLVMValueRef) -> Function {
        let fty = LLVMGlobalGetValueType(f);
        let params = LLVMCountParams(f);
        let mut param_tys = Vec::new();
        for i in 0..params {
            param_tys.push(self.ty(LLVMTypeOf(LLVMGetParam(f, i))));
        }
        Function {
            name: value_name(f),
            num_regs: params,
            params,
            variadic: LLVMIsFunctionVarArg(fty) != 0,
            param_tys: param_tys.into(),
            body: None,
        }
    }

    pub(crate) unsafe fn translate_body(&mut self, f: LLVMValueRef, fid: FuncId) -> Body {
        self.saw_undef = false;
        let mut cx = FnCtx {
            regs: HashMap::new(),
            blocks: HashMap::new(),
            vars: HashMap::new(),
        };
        let params = LLVMCountParams(f);
        for i in 0..params {
            cx.regs.insert(LLVMGetParam(f, i), i);
        }
        let mut next_reg = params;
        let mut bbs = Vec::new();
        let mut bb = LLVMGetFirstBasicBlock(f);
        while !bb.is_null() {
            cx.blocks.insert(bb, bbs.len() as BlockId);
            bbs.push(bb);
            let mut i = LLVMGetFirstInstruction(bb);
            while !i.is_null() {
                if LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMTypeKind::LLVMVoidTypeKind {
                    cx.regs.insert(i, next_reg);
                    next_reg += 1;
                }
                self.note_declare(&mut cx, i);
                i = LLVMGetNextInstruction(i);
            }
            bb = LLVMGetNextBasicBlock(bb);
        }
        let mut blocks = Vec::with_capacity(bbs.len());
        for &bb in &bbs {
            let mut phis = Vec::new();
            let mut insts = Vec::new();
            let mut locs = Vec::new();
            let mut i = LLVMGetFirstInstruction(bb);
            while !i.is_null() {
                if LLVMGetInstructionOpcode(i) == LLVMOpcode::LLVMPHI {
                    let n = LLVMCountIncoming(i);
                    let mut incoming = Vec::with_capacity(n as usize);
                    for k in 0..n {
                        let from = cx.blocks[&LLVMGetIncomingBlock(i, k)];
                        incoming.push((from, self.operand(&cx, LLVMGetIncomingValue(i, k))));
                    }
                    phis.push(Phi {
                        dst: cx.regs[&i],
                        incoming: incoming.into(),
                    });
                } else if let Some(inst) = {
                    let saw_undef = self.saw_undef;
                    let inst = self.inst(&cx, i);
                    if inst.as_ref().is_some_and(Inst::builds_aggregate) {
                        // The interpreter always looks at these (see `has_undef_operands`).
                        self.saw_undef = saw_undef;
                    }
                    inst
                } {
                    insts.push(inst);
                    locs.push(self.location_of(i));
                }
                i = LLVMGetNextInstruction(i);
            }
            blocks.push(Block {
                phis: phis.into(),
                insts: insts.into(),
                locs: locs.into(),
            });
        }
        self.functions[fid as usize].num_regs = next_reg;
        crate::ir::escape::mark_allocas(&mut blocks);
        let functions = &self.functions;
        let returns_twice = |inst: &Inst| match inst {
            Inst::Call {
                callee: Callee::Direct(f),
                ..
            } => liveness::RETURNS_TWICE.contains(&functions[*f as usize].name.as_str()),
            _ => false,
        };
        let live = liveness::Liveness::compute(&blocks, next_reg, returns_twice);
        let types = &self.types;
        let dead_slots =
            crate::ir::slots::DeadSlots::compute(&blocks, |ty| types.size(ty), returns_twice);
        Body {
            blocks: blocks.into(),
            live,
            dead_slots,
            has_undef_operands: self.saw_undef,
        }
    }

    /// Remember the variable an `llvm.dbg.declare` gives to an alloca.
    unsafe fn note_declare(&mut self, cx: &mut FnCtx, i: LLVMValueRef) {
        if LLVMGetInstructionOpcode(i) != LLVMOpcode::LLVMCall {
            return;
        }
        let callee = LLVMGetCalledValue(i);
        if callee.is_null() {
            return;
        }
        // `llvm.dbg.declare(addr, var, expr)`; with assignment tracking (clang at -O1
        // and above) `llvm.dbg.assign(value, var, expr, id, addr, addr_expr)`.
        let address_operand = match value_name(callee).as_str() {
            "llvm.dbg.declare" => 0,
            "llvm.dbg.assign" => 4,
            _ => return,
        };
        let Some((alloca, var)) = super::debuginfo::DiReader::declare(i, address_operand) else {
            return;
        };
        if cx.vars.contains_key(&alloca) {
            return;
        }
        let mut di = std::mem::take(&mut self.di);
        let v = di.variable(self, var);
        self.di = di;
        cx.vars.insert(alloca, self.debug.locals.len() as u32);
        self.debug.locals.push(v);
    }

    fn operand(&mut self, cx: &FnCtx, v: LLVMValueRef) -> Operand {
        if let Some(&r) = cx.regs.get(&v) {
            return Operand::Reg(r);
        }
        // SAFETY: `v` is a live value of the module being translated.
        let undef = unsafe { LLVMIsUndef(v) != 0 || LLVMIsPoison(v) != 0 };
        match self.const_val(v) {
            Ok(c) if undef => {
                self.saw_undef = true;
                Operand::Undef(c)
            }
            Ok(c) => Operand::Const(c),
            // Unknown constants evaluate to 0; the instruction using them is rare enough
            // (block addresses) that we do not special-case it.
            Err(_) => Operand::Const(Val::Int(0)),
        }
    }

    unsafe fn inst(&mut self, cx: &FnCtx, i: LLVMValueRef) -> Option<Inst> {
        use LLVMOpcode::*;
        let op = LLVMGetInstructionOpcode(i);
        let dst = cx.regs.get(&i).copied().unwrap_or(0);
        let o = |t: &mut Self, k: u32| t.operand(cx, LLVMGetOperand(i, k));
        let ty = self.ty(LLVMTypeOf(i));
        let unsupported = |what: String| Some(Inst::Unsupported { what });
        Some(match op {
            LLVMRet | LLVMBr | LLVMSwitch => return Some(self.terminator(cx, i)),
            LLVMUnreachable => Inst::Unreachable,
            LLVMFNeg => Inst::FNeg {
                dst,
                ty,
                a: o(self, 0),
            },
            LLVMAdd | LLVMFAdd | LLVMSub | LLVMFSub | LLVMMul | LLVMFMul | LLVMUDiv | LLVMSDiv
            | LLVMFDiv | LLVMURem | LLVMSRem | LLVMFRem | LLVMShl | LLVMLShr | LLVMAShr
            | LLVMAnd | LLVMOr | LLVMXor => Inst::Bin {
                dst,
                op: bin_op(op),
                ty,
                a: o(self, 0),
                b: o(self, 1),
            },
            LLVMAlloca | LLVMLoad | LLVMStore | LLVMFence | LLVMAtomicCmpXchg | LLVMAtomicRMW => {
                return Some(self.memory_access(cx, i, dst, ty))
            }
            LLVMGetElementPtr => return Some(self.gep(cx, i, dst)),
            LLVMTrunc | LLVMZExt | LLVMSExt | LLVMFPToUI | LLVMFPToSI | LLVMUIToFP | LLVMSIToFP
            | LLVMFPTrunc | LLVMFPExt | LLVMPtrToInt | LLVMIntToPtr | LLVMBitCast
            | LLVMAddrSpaceCast => return Some(self.cast(cx, i, dst, cast_op(op), ty)),
            LLVMICmp => {
                let oty = self.ty(LLVMTypeOf(LLVMGetOperand(i, 0)));
                Inst::ICmp {
                    dst,
                    pred: int_pred(LLVMGetICmpPredicate(i)),
                    ty: oty,
                    a: o(self, 0),
                    b: o(self, 1),
                }
            }
            LLVMFCmp => {
                let oty = self.ty(LLVMTypeOf(LLVMGetOperand(i, 0)));
                if let Err(what) = self.check_value_type(oty) {
                    return unsupported(what);
                }
                Inst::FCmp {
                    dst,
                    pred: float_pred(LLVMGetFCmpPredicate(i)),
                    ty: oty,
                    a: o(self, 0),
                    b: o(self, 1),
                }
            }
            LLVMSelect => Inst::Select {
                dst,
                cond: o(self, 0),
                a: o(self, 1),
                b: o(self, 2),
            },
            LLVMCall => return Some(self.call(cx, i, dst)),
            LLVMExtractValue | LLVMInsertValue => {
                return Some(self.aggregate_access(cx, i, dst, op == LLVMInsertValue))
            }
            LLVMExtractElement => Inst::ExtractElement {
                dst,
                vec: o(self, 0),
                idx: o(self, 1),
            },
            LLVMInsertElement => Inst::InsertElement {
                dst,
                vec: o(self, 0),
                val: o(self, 1),
                idx: o(self, 2),
            },
            LLVMShuffleVector => {
                let n = LLVMGetNumMaskElements(i);
                let mask: Box<[i32]> = (0..n).map(|k| LLVMGetMaskValue(i, k)).collect();
                Inst::ShuffleVector {
                    dst,
                    a: o(self, 0),
                    b: o(self, 1),
                    mask,
                }
            }
            LLVMFreeze => Inst::Freeze { dst, a: o(self, 0) },
            LLVMVAArg => return unsupported("the va_arg instruction".into()),
            LLVMInvoke | LLVMLandingPad | LLVMResume | LLVMCleanupPad | LLVMCatchPad
            | LLVMCatchSwitch | LLVMCatchRet | LLVMCleanupRet => {
                return unsupported("C++ exceptions (compile with -fno-exceptions)".into())
            }
            other => {
                return unsupported(format!(
                    "the LLVM instruction {other:?}: {}",
                    print_value(i)
                ))
            }
        })
    }

    /// `ret`, `br` and (the last, `_`) `switch`.
    unsafe fn terminator(&mut self, cx: &FnCtx, i: LLVMValueRef) -> Inst {
        use LLVMOpcode::*;
        let o = |t: &mut Self, k: u32| t.operand(cx, LLVMGetOperand(i, k));
        match LLVMGetInstructionOpcode(i) {
            LLVMRet => {
                if LLVMGetNumOperands(i) == 0 {
                    Inst::Ret { val: None }
                } else {
                    Inst::Ret {
                        val: Some(o(self, 0)),
                    }
                }
            }
            LLVMBr => {
                if LLVMIsConditional(i) != 0 {
                    Inst::CondBr {
                        cond: self.operand(cx, LLVMGetCondition(i)),
                        then_bb: cx.blocks[&LLVMGetSuccessor(i, 0)],
                        else_bb: cx.blocks[&LLVMGetSuccessor(i, 1)],
                    }
                } else {
                    Inst::Br {
                        target: cx.blocks[&LLVMGetSuccessor(i, 0)],
                    }
                }
            }
            _ => self.switch(cx, i),
        }
    }

    /// Allocations, loads, stores, fences, compare-and-swaps and (the last, `_`) atomic
    /// read-modify-writes.
    unsafe fn memory_access(&mut self, cx: &FnCtx, i: LLVMValueRef, dst: Reg, ty: TyId) -> Inst {
        use LLVMOpcode::*;
        let o = |t: &mut Self, k: u32| t.operand(cx, LLVMGetOperand(i, k));
        match LLVMGetInstructionOpcode(i) {
            LLVMAlloca => {
                let at = LLVMGetAllocatedType(i);
                Inst::Alloca {
                    dst,
                    elem_size: self.alloc_size(at),
                    count: o(self, 0),
                    var: cx.vars.get(&i).copied(),
                    // Decided once the whole body is known (`escape::mark_allocas`).
                    escapes: true,
                }
            }
            LLVMLoad => Inst::Load {
                dst,
                ty,
                ptr: o(self, 0),
                order: mem_order(LLVMGetOrdering(i)),
            },
            LLVMStore => {
                let vty = self.ty(LLVMTypeOf(LLVMGetOperand(i, 0)));
                Inst::Store {
                    ty: vty,
                    val: o(self, 0),
                    ptr: o(self, 1),
                    order: mem_order(LLVMGetOrdering(i)),
                }
            }
            LLVMFence => Inst::Fence {
                order: mem_order(LLVMGetOrdering(i)),
            },
            LLVMAtomicCmpXchg => {
                let vty = self.ty(LLVMTypeOf(LLVMGetOperand(i, 1)));
                Inst::CmpXchg {
                    dst,
                    ty: vty,
                    ptr: o(self, 0),
                    expected: o(self, 1),
                    new: o(self, 2),
                    order: mem_order(LLVMGetCmpXchgSuccessOrdering(i)),
                }
            }
            _ => Inst::AtomicRmw {
                dst,
                op: rmw_op(LLVMGetAtomicRMWBinOp(i)),
                ty,
                ptr: o(self, 0),
                val: o(self, 1),
                order: mem_order(LLVMGetOrdering(i)),
            },
        }
    }

    unsafe fn switch(&mut self, cx: &FnCtx, i: LLVMValueRef) -> Inst {
        let val = self.operand(cx, LLVMGetOperand(i, 0));
        let vty = self.ty(LLVMTypeOf(LLVMGetOperand(i, 0)));
        if self.types.int_bits(vty) > 128 {
            return Inst::Unsupported {
                what: format!("switch on a value of type {}", self.types.name(vty)),
            };
        }
        let n = LLVMGetNumSuccessors(i);
        let mut cases = Vec::new();
        for k in 1..n {
            let c = LLVMGetOperand(i, 2 * k);
            let v = self.const_val(c).map(|v| v.bits()).unwrap_or(0);
            cases.push((v, cx.blocks[&LLVMGetSuccessor(i, k)]));
        }
        Inst::Switch {
            val,
            ty: vty,
            cases: cases.into(),
            default: cx.blocks[&LLVMGetSwitchDefaultDest(i)],
        }
    }

    unsafe fn cast(&mut self, cx: &FnCtx, i: LLVMValueRef, dst: Reg, op: CastOp, to: TyId) -> Inst {
        let from = self.ty(LLVMTypeOf(LLVMGetOperand(i, 0)));
        if let Err(what) = self.check_value_type(from).and(self.check_value_type(to)) {
            return Inst::Unsupported { what };
        }
        Inst::Cast {
            dst,
            op,
            from,
            to,
            a: self.operand(cx, LLVMGetOperand(i, 0)),
        }
    }

    /// `extractvalue`, or `insertvalue` when `insert`.
    unsafe fn aggregate_access(
        &mut self,
        cx: &FnCtx,
        i: LLVMValueRef,
        dst: Reg,
        insert: bool,
    ) -> Inst {
        let n = LLVMGetNumIndices(i);
        let p = LLVMGetIndices(i);
        let indices: Box<[u32]> = if p.is_null() {
            Box::new([])
        } else {
            std::slice::from_raw_parts(p, n as usize).into()
        };
        let agg = self.operand(cx, LLVMGetOperand(i, 0));
        if insert {
            Inst::InsertValue {
                dst,
                agg,
                val: self.operand(cx, LLVMGetOperand(i, 1)),
                indices,
            }
        } else {
            Inst::ExtractValue { dst, agg, indices }
        }
    }

    /// Values of these types cannot be held in registers.
    fn check_value_type(&self, ty: TyId) -> Result<(), String> {
        match self.types.get(ty) {
            Ty::Other(name) => Err(format!("values of type {name}")),
            _ => Ok(()),
        }
    }

    unsafe fn gep(&mut self, cx: &FnCtx, i: LLVMValueRef, dst: Reg) -> Inst {
        let base = self.operand(cx, LLVMGetOperand(i, 0));
        if LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMTypeKind::LLVMVectorTypeKind {
            return Inst::Unsupported {
                what: "getelementptr on a vector of pointers".into(),
            };
        }
        let src = self.ty(LLVMGetGEPSourceElementType(i));
        let n = LLVMGetNumOperands(i) as u32;
        let mut offset: i64 = 0;
        let mut indices = Vec::new();
        let mut cur = src;
        for k in 1..n {
            let iv = LLVMGetOperand(i, k);
            let ity = self.ty(LLVMTypeOf(iv));
            let idx = self.operand(cx, iv);
            let scale: i64;
            if k == 1 {
                scale = self.types.size_alloc(cur) as i64;
            } else {
                match self.types.get(cur).clone() {
                    Ty::Struct { fields, .. } => {
                        let Operand::Const(c) = &idx else {
                            return Inst::Unsupported {
                                what: "non-constant struct index in getelementptr".into(),
                            };
                        };
                        let f = c.bits() as usize;
                        let Some(&(off, fty)) = fields.get(f) else {
                            return Inst::Unsupported {
                                what: "struct index out of range in getelementptr".into(),
                            };
                        };
                        offset = offset.wrapping_add(off as i64);
                        cur = fty;
                        continue;
                    }
                    Ty::Array { elem, stride, .. } => {
                        scale = stride as i64;
                        cur = elem;
                    }
                    Ty::Vector { elem, .. } => {
                        scale = self.types.size(elem) as i64;
                        cur = elem;
                    }
                    _ => {
                        return Inst::Unsupported {
                            what: "getelementptr into a scalar".into(),
                        }
                    }
                }
            }
            match idx {
                Operand::Const(c) => {
                    let v = crate::value::sext(c.bits(), self.types.int_bits(ity)) as i64;
                    offset = offset.wrapping_add(v.wrapping_mul(scale));
                }
                reg => indices.push((reg, scale, ity)),
            }
        }
        Inst::Gep {
            dst,
            base,
            offset,
            indices: indices.into(),
        }
    }

    unsafe fn call(&mut self, cx: &FnCtx, i: LLVMValueRef, dst: Reg) -> Inst {
        let callee_v = LLVMGetCalledValue(i);
        let nargs = LLVMGetNumArgOperands(i);
        let ret_ty = self.ty(LLVMGetReturnType(LLVMGetCalledFunctionType(i)));
        let has_dst = LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMTypeKind::LLVMVoidTypeKind;
        let dst = if has_dst { Some(dst) } else { None };
        if !LLVMIsAInlineAsm(callee_v).is_null() {
            let mut len = 0usize;
            let p = LLVMGetInlineAsmAsmString(callee_v, &mut len);
            let asm = if p.is_null() {
                String::new()
            } else {
                String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len))
                    .into_owned()
            };
            let text = asm.trim();
            // Under SC every fence orders nothing the interleavings do not already
            // order; the TSO pass has replaced full fences by its own call before this.
            let callee = match super::asm::asm_effect(text) {
                AsmEffect::FullFence => Some(Callee::AsmFence),
                AsmEffect::NoOpFence | AsmEffect::Harmless => {
                    Some(Callee::Intrinsic(Intrinsic::NoOp))
                }
                AsmEffect::Unknown => None,
            };
            if let Some(callee) = callee {
                return Inst::Call {
                    dst,
                    callee,
                    args: Box::new([]),
                    ret_ty,
                    abi: None,
                };
            }
            return Inst::Unsupported {
                what: format!("inline assembly `{text}`"),
            };
        }
        let mut callee = None;
        let target = super::constants::strip_casts(callee_v);
        if let Some(&fid) = self.function_ids.get(&target) {
            let name = &self.functions[fid as usize].name;
            if name.starts_with("llvm.") {
                match intrinsics::classify(name) {
                    Some(Intrinsic::NoOp) if name.starts_with("llvm.dbg.") => {
                        return Inst::Call {
                            dst,
                            callee: Callee::Intrinsic(Intrinsic::NoOp),
                            args: Box::new([]),
                            ret_ty,
                            abi: None,
                        };
                    }
                    Some(intr) => callee = Some(Callee::Intrinsic(intr)),
                    None => {
                        return Inst::Unsupported {
                            what: format!("the intrinsic {name}"),
                        }
                    }
                }
            } else {
                callee = Some(Callee::Direct(fid));
            }
        }
        let callee = callee.unwrap_or_else(|| Callee::Indirect(self.operand(cx, callee_v)));
        let args: Box<[Operand]> = (0..nargs)
            .map(|k| self.operand(cx, LLVMGetOperand(i, k)))
            .collect();
        let abi = self.call_abi(i, nargs);
        Inst::Call {
            dst,
            callee,
            args,
            ret_ty,
            abi,
        }
    }

    /// byval arguments and, for variadic callees, argument types.
    unsafe fn call_abi(&mut self, call: LLVMValueRef, nargs: u32) -> Option<Box<CallAbi>> {
        let kind = LLVMGetEnumAttributeKindForName(c"byval".as_ptr(), 5);
        let mut byval = Vec::new();
        for k in 0..nargs {
            let attr = LLVMGetCallSiteEnumAttribute(call, k + 1, kind);
            if !attr.is_null() {
                let ty = LLVMGetTypeAttributeValue(attr);
                byval.push((k, self.alloc_size(ty)));
            }
        }
        let variadic = LLVMIsFunctionVarArg(LLVMGetCalledFunctionType(call)) != 0;
        if byval.is_empty() && !variadic {
            return None;
        }
        let arg_tys = if variadic {
            (0..nargs)
                .map(|k| self.ty(LLVMTypeOf(LLVMGetOperand(call, k))))
                .collect()
        } else {
            Box::new([]) as Box<[TyId]>
        };
        Some(Box::new(CallAbi {
            byval: byval.into(),
            arg_tys,
        }))
    }
}

/// An LLVM atomic ordering as the C11 memory order it implements (LLVM's `unordered`,
/// Java's, is atomic and no stronger than relaxed; `monotonic` is relaxed).
pub fn mem_order(o: LLVMAtomicOrdering) -> MemOrder {
    use LLVMAtomicOrdering::*;
    match o {
        LLVMAtomicOrderingNotAtomic => MemOrder::NotAtomic,
        LLVMAtomicOrderingUnordered | LLVMAtomicOrderingMonotonic => MemOrder::Relaxed,
        LLVMAtomicOrderingAcquire => MemOrder::Acquire,
        LLVMAtomicOrderingRelease => MemOrder::Release,
        LLVMAtomicOrderingAcquireRelease => MemOrder::AcqRel,
        LLVMAtomicOrderingSequentiallyConsistent => MemOrder::SeqCst,
    }
}

/// The engine's binary operator for an LLVM binary opcode (`Xor` for the last).
fn bin_op(op: LLVMOpcode) -> BinOp {
    use LLVMOpcode::*;
    match op {
        LLVMAdd => BinOp::Add,
        LLVMFAdd => BinOp::FAdd,
        LLVMSub => BinOp::Sub,
        LLVMFSub => BinOp::FSub,
        LLVMMul => BinOp::Mul,
        LLVMFMul => BinOp::FMul,
        LLVMUDiv => BinOp::UDiv,
        LLVMSDiv => BinOp::SDiv,
        LLVMFDiv => BinOp::FDiv,
        LLVMURem => BinOp::URem,
        LLVMSRem => BinOp::SRem,
        LLVMFRem => BinOp::FRem,
        LLVMShl => BinOp::Shl,
        LLVMLShr => BinOp::LShr,
        LLVMAShr => BinOp::AShr,
        LLVMAnd => BinOp::And,
        LLVMOr => BinOp::Or,
        _ => BinOp::Xor,
    }
}

/// The engine's cast for an LLVM cast opcode (`AddrSpace` for the last).
fn cast_op(op: LLVMOpcode) -> CastOp {
    use LLVMOpcode::*;
    match op {
        LLVMTrunc => CastOp::Trunc,
        LLVMZExt => CastOp::ZExt,
        LLVMSExt => CastOp::SExt,
        LLVMFPToUI => CastOp::FpToUi,
        LLVMFPToSI => CastOp::FpToSi,
        LLVMUIToFP => CastOp::UiToFp,
        LLVMSIToFP => CastOp::SiToFp,
        LLVMFPTrunc => CastOp::FpTrunc,
        LLVMFPExt => CastOp::FpExt,
        LLVMPtrToInt => CastOp::PtrToInt,
        LLVMIntToPtr => CastOp::IntToPtr,
        LLVMBitCast => CastOp::Bitcast,
        _ => CastOp::AddrSpace,
    }
}

fn int_pred(p: LLVMIntPredicate) -> IntPred {
    use LLVMIntPredicate::*;
    match p {
        LLVMIntEQ => IntPred::Eq,
        LLVMIntNE => IntPred::Ne,
        LLVMIntUGT => IntPred::Ugt,
        LLVMIntUGE => IntPred::Uge,
        LLVMIntULT => IntPred::Ult,
        LLVMIntULE => IntPred::Ule,
        LLVMIntSGT => IntPred::Sgt,
        LLVMIntSGE => IntPred::Sge,
        LLVMIntSLT => IntPred::Slt,
        LLVMIntSLE => IntPred::Sle,
    }
}

fn float_pred(p: LLVMRealPredicate) -> FloatPred {
    use LLVMRealPredicate::*;
    match p {
        LLVMRealPredicateFalse => FloatPred::False,
        LLVMRealOEQ => FloatPred::Oeq,
        LLVMRealOGT => FloatPred::Ogt,
        LLVMRealOGE => FloatPred::Oge,
        LLVMRealOLT => FloatPred::Olt,
        LLVMRealOLE => FloatPred::Ole,
        LLVMRealONE => FloatPred::One,
        LLVMRealORD => FloatPred::Ord,
        LLVMRealUNO => FloatPred::Uno,
        LLVMRealUEQ => FloatPred::Ueq,
        LLVMRealUGT => FloatPred::Ugt,
        LLVMRealUGE => FloatPred::Uge,
        LLVMRealULT => FloatPred::Ult,
        LLVMRealULE => FloatPred::Ule,
        LLVMRealUNE => FloatPred::Une,
        LLVMRealPredicateTrue => FloatPred::True,
    }
}

fn rmw_op(op: LLVMAtomicRMWBinOp) -> RmwOp {
    use LLVMAtomicRMWBinOp::*;
    match op {
        LLVMAtomicRMWBinOpXchg => RmwOp::Xchg,
        LLVMAtomicRMWBinOpAdd => RmwOp::Add,
        LLVMAtomicRMWBinOpSub => RmwOp::Sub,
        LLVMAtomicRMWBinOpAnd => RmwOp::And,
        LLVMAtomicRMWBinOpNand => RmwOp::Nand,
        LLVMAtomicRMWBinOpOr => RmwOp::Or,
        LLVMAtomicRMWBinOpXor => RmwOp::Xor,
        LLVMAtomicRMWBinOpMax => RmwOp::Max,
        LLVMAtomicRMWBinOpMin => RmwOp::Min,
        LLVMAtomicRMWBinOpUMax => RmwOp::UMax,
        LLVMAtomicRMWBinOpUMin => RmwOp::UMin,
        LLVMAtomicRMWBinOpFAdd => RmwOp::FAdd,
        LLVMAtomicRMWBinOpFSub => RmwOp::FSub,
        LLVMAtomicRMWBinOpFMax => RmwOp::FMax,
        LLVMAtomicRMWBinOpFMin => RmwOp::FMin,
        LLVMAtomicRMWBinOpUIncWrap => RmwOp::UIncWrap,
        LLVMAtomicRMWBinOpUDecWrap => RmwOp::UDecWrap,
    }
}
