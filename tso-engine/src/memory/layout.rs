//! Converting register values to and from memory bytes, following the data layout
//! computed at load time.

use crate::ir::{Ty, TyId, TypeTable};
use crate::value::Val;
use std::rc::Rc;

/// Write `val` of type `ty` into `out` (exactly `types.size(ty)` bytes); pointer
/// starts (relative to `out`) are pushed to `ptrs` shifted by `base`.
pub fn encode(types: &TypeTable, ty: TyId, val: &Val, out: &mut [u8], base: u32, ptrs: &mut Vec<u32>) {
    match types.get(ty) {
        Ty::Int(_) | Ty::Ptr | Ty::F32 | Ty::F64 => {
            let n = out.len().min(16);
            let bits = val.bits().to_le_bytes();
            out[..n].copy_from_slice(&bits[..n]);
            if let Val::Ptr(_) = val {
                if out.len() == 8 {
                    ptrs.push(base);
                }
            }
        }
        Ty::Struct { fields, .. } => {
            let lanes = val.lanes();
            for (i, (off, fty)) in fields.iter().enumerate() {
                let sz = types.size(*fty) as usize;
                let off = *off as usize;
                if let Some(v) = lanes.get(i) {
                    encode(types, *fty, v, &mut out[off..off + sz], base + off as u32, ptrs);
                }
            }
        }
        Ty::Array { elem, len, stride } => {
            let lanes = val.lanes();
            let sz = types.size(*elem) as usize;
            for i in 0..*len as usize {
                let off = i * *stride as usize;
                if let Some(v) = lanes.get(i) {
                    encode(types, *elem, v, &mut out[off..off + sz], base + off as u32, ptrs);
                }
            }
        }
        Ty::Vector { elem, len } => {
            let lanes = val.lanes();
            let bits = types.int_bits(*elem);
            if bits == 1 {
                // <N x i1> is bit-packed in memory.
                for b in out.iter_mut() {
                    *b = 0;
                }
                for i in 0..*len as usize {
                    if lanes.get(i).is_some_and(|v| v.is_true()) {
                        out[i / 8] |= 1 << (i % 8);
                    }
                }
                return;
            }
            let sz = types.size(*elem) as usize;
            for i in 0..*len as usize {
                if let Some(v) = lanes.get(i) {
                    encode(types, *elem, v, &mut out[i * sz..(i + 1) * sz], base + (i * sz) as u32, ptrs);
                }
            }
        }
        Ty::Void | Ty::Other(_) => {}
    }
}

/// Read a value of type `ty` from `bytes`; `is_ptr(rel)` says whether a pointer with
/// provenance starts at that offset.
pub fn decode(types: &TypeTable, ty: TyId, bytes: &[u8], base: u32, is_ptr: &dyn Fn(u32) -> bool) -> Val {
    match types.get(ty) {
        Ty::Int(bits) => {
            let mut buf = [0u8; 16];
            let n = bytes.len().min(16);
            buf[..n].copy_from_slice(&bytes[..n]);
            let v = u128::from_le_bytes(buf) & crate::value::mask(*bits);
            if *bits == 64 && is_ptr(base) {
                Val::Ptr(v as u64)
            } else {
                Val::Int(v)
            }
        }
        Ty::Ptr => {
            let mut buf = [0u8; 8];
            buf.copy_from_slice(&bytes[..8]);
            let v = u64::from_le_bytes(buf);
            if is_ptr(base) {
                Val::Ptr(v)
            } else {
                Val::Int(v as u128)
            }
        }
        Ty::F32 => Val::F32(u32::from_le_bytes(bytes[..4].try_into().unwrap_or([0; 4]))),
        Ty::F64 => Val::F64(u64::from_le_bytes(bytes[..8].try_into().unwrap_or([0; 8]))),
        Ty::Struct { fields, .. } => {
            let v: Vec<Val> = fields
                .iter()
                .map(|(off, fty)| {
                    let sz = types.size(*fty) as usize;
                    let off = *off as usize;
                    decode(types, *fty, &bytes[off..off + sz], base + off as u32, is_ptr)
                })
                .collect();
            Val::Agg(Rc::from(v))
        }
        Ty::Array { elem, len, stride } => {
            let sz = types.size(*elem) as usize;
            let v: Vec<Val> = (0..*len as usize)
                .map(|i| {
                    let off = i * *stride as usize;
                    decode(types, *elem, &bytes[off..off + sz], base + off as u32, is_ptr)
                })
                .collect();
            Val::Agg(Rc::from(v))
        }
        Ty::Vector { elem, len } => {
            if types.int_bits(*elem) == 1 {
                let v: Vec<Val> = (0..*len as usize).map(|i| Val::bool(bytes[i / 8] & (1 << (i % 8)) != 0)).collect();
                return Val::Agg(Rc::from(v));
            }
            let sz = types.size(*elem) as usize;
            let v: Vec<Val> = (0..*len as usize)
                .map(|i| decode(types, *elem, &bytes[i * sz..(i + 1) * sz], base + (i * sz) as u32, is_ptr))
                .collect();
            Val::Agg(Rc::from(v))
        }
        Ty::Void | Ty::Other(_) => Val::Int(0),
    }
}
