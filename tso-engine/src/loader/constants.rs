//! Constant values and global initialisers.

use super::{print_value, Translator};
use crate::ir::{Ty, TyId, FUNCTION_OBJECT_BASE};
use crate::memory::encode;
use crate::value::{make_ptr, mask, Val};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMOpcode, LLVMValueKind};
use std::sync::Arc;

/// Look through pointer casts in constant expressions (aliases, ctor entries).
pub(crate) fn strip_casts(mut v: LLVMValueRef) -> LLVMValueRef {
    unsafe {
        while LLVMGetValueKind(v) == LLVMValueKind::LLVMConstantExprValueKind
            && matches!(
                LLVMGetConstOpcode(v),
                LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast
            )
        {
            v = LLVMGetOperand(v, 0);
        }
        v
    }
}

impl Translator {
    pub(crate) unsafe fn init_global(&mut self, g: LLVMValueRef) {
        let gid = self.global_ids[&g] as usize;
        let size = self.globals[gid].size as usize;
        let mut bytes = vec![0u8; size];
        let mut ptrs = Vec::new();
        let init = LLVMGetInitializer(g);
        if init.is_null() {
            // An external declaration (stdout, stderr, ...): make FILE* streams non-null.
            let name = self.globals[gid].name.clone();
            if matches!(name.as_str(), "stdin" | "stdout" | "stderr") && size >= 8 {
                bytes[..8].copy_from_slice(&make_ptr(gid as u32 + 1, 0).to_le_bytes());
                ptrs.push(0);
            }
        } else {
            let ty = self.ty(LLVMTypeOf(init));
            match self.const_val(init) {
                Ok(val) => {
                    let n = (self.types.size(ty) as usize).min(size);
                    encode(&self.types, ty, &val, &mut bytes[..n], 0, &mut ptrs);
                }
                Err(_) => {
                    // Left zero; accesses still work. Rare (block addresses and the like).
                }
            }
        }
        let glob = &mut self.globals[gid];
        glob.init = bytes.into();
        glob.init_ptrs = ptrs.into();
    }

    pub(crate) fn zero(&self, ty: TyId) -> Val {
        match self.types.get(ty) {
            Ty::Struct { fields, .. } => Val::Agg(
                fields
                    .iter()
                    .map(|(_, f)| self.zero(*f))
                    .collect::<Vec<_>>()
                    .into(),
            ),
            Ty::Array { elem, len, .. } => {
                let z = self.zero(*elem);
                Val::Agg(Arc::from(vec![z; (*len).min(1 << 20) as usize]))
            }
            Ty::Vector { elem, len } => {
                let z = self.zero(*elem);
                Val::Agg(Arc::from(vec![z; *len as usize]))
            }
            Ty::F32 => Val::F32(0),
            Ty::F64 => Val::F64(0),
            Ty::Int(bits) if *bits > 128 => crate::wide::val(crate::wide::zero(*bits), *bits),
            _ => Val::Int(0),
        }
    }

    /// Evaluate a constant to a value. Errors name the construct for an "unsupported" verdict.
    pub(crate) fn const_val(&mut self, v: LLVMValueRef) -> Result<Val, String> {
        unsafe {
            let ty = self.ty(LLVMTypeOf(v));
            match LLVMGetValueKind(v) {
                LLVMValueKind::LLVMConstantIntValueKind => {
                    let bits = self.types.int_bits(ty);
                    if bits <= 64 {
                        Ok(Val::Int(LLVMConstIntGetZExtValue(v) as u128 & mask(bits)))
                    } else {
                        // Wide constants: the C API only exposes 64 bits; parse the printed form.
                        let s = print_value(v);
                        let num = s.rsplit(' ').next().unwrap_or("0");
                        crate::wide::from_decimal(num, bits)
                            .map(|l| crate::wide::val(l, bits))
                            .ok_or_else(|| format!("integer constant {s}"))
                    }
                }
                LLVMValueKind::LLVMConstantFPValueKind => {
                    let mut loses = 0;
                    let d = LLVMConstRealGetDouble(v, &mut loses);
                    match self.types.get(ty) {
                        Ty::F32 => Ok(Val::F32((d as f32).to_bits())),
                        Ty::F64 => Ok(Val::F64(d.to_bits())),
                        _ => Err(format!(
                            "floating-point constant of type {}",
                            self.types.name(ty)
                        )),
                    }
                }
                LLVMValueKind::LLVMConstantPointerNullValueKind => Ok(Val::Int(0)),
                // Poison is an UndefValue subclass in the C API's kinds.
                LLVMValueKind::LLVMConstantAggregateZeroValueKind
                | LLVMValueKind::LLVMUndefValueValueKind => Ok(self.zero(ty)),
                LLVMValueKind::LLVMConstantArrayValueKind
                | LLVMValueKind::LLVMConstantStructValueKind
                | LLVMValueKind::LLVMConstantVectorValueKind
                | LLVMValueKind::LLVMConstantDataArrayValueKind
                | LLVMValueKind::LLVMConstantDataVectorValueKind => {
                    let n = match self.types.get(ty) {
                        Ty::Struct { fields, .. } => fields.len() as u64,
                        Ty::Array { len, .. } => *len,
                        Ty::Vector { len, .. } => *len as u64,
                        _ => 0,
                    };
                    let mut out = Vec::with_capacity(n as usize);
                    for i in 0..n {
                        let e = LLVMGetAggregateElement(v, i as u32);
                        if e.is_null() {
                            return Err("aggregate constant".into());
                        }
                        out.push(self.const_val(e)?);
                    }
                    Ok(Val::Agg(out.into()))
                }
                LLVMValueKind::LLVMGlobalVariableValueKind
                | LLVMValueKind::LLVMGlobalAliasValueKind => {
                    if let Some(&gid) = self.global_ids.get(&v) {
                        Ok(Val::Ptr(make_ptr(gid + 1, 0)))
                    } else if let Some(&fid) = self.function_ids.get(&v) {
                        Ok(Val::Ptr(make_ptr(FUNCTION_OBJECT_BASE + fid, 0)))
                    } else {
                        Err(format!(
                            "reference to unknown global {}",
                            super::value_name(v)
                        ))
                    }
                }
                LLVMValueKind::LLVMFunctionValueKind => match self.function_ids.get(&v) {
                    Some(&fid) => Ok(Val::Ptr(make_ptr(FUNCTION_OBJECT_BASE + fid, 0))),
                    None => Err("unknown function".into()),
                },
                LLVMValueKind::LLVMConstantExprValueKind => self.const_expr(v, ty),
                _ if LLVMIsPoison(v) != 0 => Ok(self.zero(ty)),
                other => Err(format!("constant of kind {other:?}: {}", print_value(v))),
            }
        }
    }

    unsafe fn const_expr(&mut self, v: LLVMValueRef, ty: TyId) -> Result<Val, String> {
        let op = LLVMGetConstOpcode(v);
        let a = |t: &mut Self, i| t.const_val(LLVMGetOperand(v, i));
        match op {
            LLVMOpcode::LLVMBitCast
            | LLVMOpcode::LLVMAddrSpaceCast
            | LLVMOpcode::LLVMIntToPtr
            | LLVMOpcode::LLVMPtrToInt => {
                let x = a(self, 0)?;
                let bits = self.types.int_bits(ty);
                Ok(match x {
                    Val::Ptr(p) if bits >= 64 => Val::Ptr(p),
                    other => Val::Int(other.bits() & mask(bits)),
                })
            }
            LLVMOpcode::LLVMTrunc => {
                let bits = self.types.int_bits(ty);
                Ok(crate::wide::val(crate::wide::of(&a(self, 0)?, bits), bits))
            }
            LLVMOpcode::LLVMGetElementPtr => {
                let base = a(self, 0)?;
                let src = self.ty(LLVMGetGEPSourceElementType(v));
                let n = LLVMGetNumOperands(v) as u32;
                let mut offset: i64 = 0;
                let mut cur = src;
                for i in 1..n {
                    let idx_v = LLVMGetOperand(v, i);
                    let idx_ty = self.ty(LLVMTypeOf(idx_v));
                    let raw = self.const_val(idx_v)?.bits();
                    let idx = crate::value::sext(raw, self.types.int_bits(idx_ty)) as i64;
                    if i == 1 {
                        offset = offset
                            .wrapping_add(idx.wrapping_mul(self.types.size_alloc(cur) as i64));
                        continue;
                    }
                    match self.types.get(cur).clone() {
                        Ty::Struct { fields, .. } => {
                            let (off, fty) = fields
                                .get(idx as usize)
                                .copied()
                                .ok_or("bad struct index in constant GEP")?;
                            offset = offset.wrapping_add(off as i64);
                            cur = fty;
                        }
                        Ty::Array { elem, stride, .. } => {
                            offset = offset.wrapping_add(idx.wrapping_mul(stride as i64));
                            cur = elem;
                        }
                        Ty::Vector { elem, .. } => {
                            offset =
                                offset.wrapping_add(idx.wrapping_mul(self.types.size(elem) as i64));
                            cur = elem;
                        }
                        _ => return Err("constant GEP into a scalar".into()),
                    }
                }
                Ok(match base {
                    Val::Ptr(p) => {
                        let (obj, off) = crate::value::ptr_parts(p);
                        Val::Ptr(make_ptr(
                            obj,
                            (off as u64).wrapping_add(offset as u64) as u32,
                        ))
                    }
                    other => Val::Int((other.bits() as u64).wrapping_add(offset as u64) as u128),
                })
            }
            LLVMOpcode::LLVMAdd
            | LLVMOpcode::LLVMSub
            | LLVMOpcode::LLVMMul
            | LLVMOpcode::LLVMXor => {
                let x = a(self, 0)?;
                let y = a(self, 1)?;
                let bits = self.types.int_bits(ty);
                if bits > 128 {
                    return Err(format!(
                        "constant expression on i{bits}: {}",
                        print_value(v)
                    ));
                }
                let r = match op {
                    LLVMOpcode::LLVMAdd => x.bits().wrapping_add(y.bits()),
                    LLVMOpcode::LLVMSub => x.bits().wrapping_sub(y.bits()),
                    LLVMOpcode::LLVMMul => x.bits().wrapping_mul(y.bits()),
                    _ => x.bits() ^ y.bits(),
                } & mask(bits);
                let ptr = matches!(x, Val::Ptr(_))
                    && !matches!(y, Val::Ptr(_))
                    && op != LLVMOpcode::LLVMMul;
                Ok(if ptr { Val::Ptr(r as u64) } else { Val::Int(r) })
            }
            other => Err(format!("constant expression {other:?}: {}", print_value(v))),
        }
    }
}
