//! Reading the module's debug-info metadata (DIGlobalVariable, DILocalVariable via
//! `llvm.dbg.declare`, DICompositeType members and offsets) into [`DebugInfo`].
//!
//! Why the LLVM module and not DWARF from an object file (gimli): the checker never
//! produces object code, the metadata is already in the bitcode it loads, and it is
//! attached to the very globals and allocas the interpreter allocates, so no address
//! matching is needed. The LLVM C API has getters for some node fields; the rest
//! (names, base types, elements) are read as the node's operands, whose order is
//! fixed by LLVM's `DebugInfoMetadata.h` for LLVM 19.

use super::Translator;
use crate::ir::debug::{DebugVar, DiMember, DiType, DiTypeId, Encoding};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::debuginfo::*;
use inkwell::llvm_sys::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;

// DWARF tags (DWARF 5, §7.5.4).
const TAG_ARRAY: u16 = 0x01;
const TAG_CLASS: u16 = 0x02;
const TAG_ENUMERATION: u16 = 0x04;
const TAG_MEMBER: u16 = 0x0d;
const TAG_POINTER: u16 = 0x0f;
const TAG_REFERENCE: u16 = 0x10;
const TAG_STRUCTURE: u16 = 0x13;
const TAG_UNION: u16 = 0x17;
const TAG_INHERITANCE: u16 = 0x1c;
const TAG_RVALUE_REFERENCE: u16 = 0x42;

// Operand positions (llvm/IR/DebugInfoMetadata.h, LLVM 19).
const TYPE_NAME: u32 = 2;
const TYPE_BASE: u32 = 3; // DIDerivedType / DICompositeType
const COMPOSITE_ELEMENTS: u32 = 4;
const COMPOSITE_IDENTIFIER: u32 = 7;
const VARIABLE_SCOPE: u32 = 0; // DIVariable
const VARIABLE_NAME: u32 = 1;
const VARIABLE_TYPE: u32 = 3;
const SUBPROGRAM_NAME: u32 = 2;
const SUBPROGRAM_LINKAGE_NAME: u32 = 3;
const LEXICAL_SCOPE_PARENT: u32 = 1; // DILexicalBlock(File)
const SUBRANGE_COUNT: u32 = 0;

/// Reads metadata nodes; remembers the types already translated.
#[derive(Default)]
pub(crate) struct DiReader {
    types: HashMap<LLVMMetadataRef, DiTypeId>,
}

unsafe fn operands(ctx: LLVMContextRef, md: LLVMMetadataRef) -> Vec<LLVMValueRef> {
    let v = LLVMMetadataAsValue(ctx, md);
    let n = LLVMGetMDNodeNumOperands(v) as usize;
    let mut ops = vec![std::ptr::null_mut(); n];
    if n > 0 {
        LLVMGetMDNodeOperands(v, ops.as_mut_ptr());
    }
    ops
}

unsafe fn operand_md(ctx: LLVMContextRef, md: LLVMMetadataRef, i: u32) -> Option<LLVMMetadataRef> {
    let v = *operands(ctx, md).get(i as usize)?;
    (!v.is_null()).then(|| LLVMValueAsMetadata(v))
}

unsafe fn operand_str(ctx: LLVMContextRef, md: LLVMMetadataRef, i: u32) -> String {
    let Some(v) = operands(ctx, md).get(i as usize).copied() else {
        return String::new();
    };
    if v.is_null() {
        return String::new();
    }
    let mut len = 0u32;
    let p = LLVMGetMDString(v, &mut len);
    if p.is_null() {
        return String::new();
    }
    String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len as usize)).into_owned()
}

unsafe fn kind(md: LLVMMetadataRef) -> LLVMMetadataKind {
    LLVMGetMetadataKind(md)
}

/// `dir/file` of a DIFile.
pub(crate) unsafe fn file_path(file: LLVMMetadataRef) -> String {
    if file.is_null() {
        return String::new();
    }
    let mut len = 0u32;
    let f = LLVMDIFileGetFilename(file, &mut len);
    let name = if f.is_null() {
        String::new()
    } else {
        String::from_utf8_lossy(std::slice::from_raw_parts(f as *const u8, len as usize))
            .into_owned()
    };
    let mut dlen = 0u32;
    let d = LLVMDIFileGetDirectory(file, &mut dlen);
    let dir = if d.is_null() {
        String::new()
    } else {
        String::from_utf8_lossy(std::slice::from_raw_parts(d as *const u8, dlen as usize))
            .into_owned()
    };
    if name.starts_with('/') || dir.is_empty() {
        name
    } else {
        format!("{dir}/{name}")
    }
}

/// The function a scope (subprogram or lexical block) belongs to, by its symbol.
pub(crate) unsafe fn scope_function(ctx: LLVMContextRef, scope: LLVMMetadataRef) -> Option<String> {
    let mut s = scope;
    for _ in 0..256 {
        if s.is_null() {
            return None;
        }
        match kind(s) {
            LLVMMetadataKind::LLVMDISubprogramMetadataKind => {
                let linkage = operand_str(ctx, s, SUBPROGRAM_LINKAGE_NAME);
                return Some(if linkage.is_empty() {
                    operand_str(ctx, s, SUBPROGRAM_NAME)
                } else {
                    linkage
                });
            }
            LLVMMetadataKind::LLVMDILexicalBlockMetadataKind
            | LLVMMetadataKind::LLVMDILexicalBlockFileMetadataKind => {
                s = operand_md(ctx, s, LEXICAL_SCOPE_PARENT)?;
            }
            _ => return None,
        }
    }
    None
}

impl DiReader {
    /// A variable node (DIGlobalVariable or DILocalVariable) as a [`DebugVar`].
    pub(crate) unsafe fn variable(&mut self, t: &mut Translator, var: LLVMMetadataRef) -> DebugVar {
        let ctx = LLVMGetModuleContext(t.module);
        let ty_md = operand_md(ctx, var, VARIABLE_TYPE);
        let ty = ty_md.map(|m| self.ty(t, ctx, m));
        let scope = operand_md(ctx, var, VARIABLE_SCOPE);
        let function = scope
            .and_then(|s| scope_function(ctx, s))
            .map(|f| t.function_name(f));
        DebugVar {
            name: operand_str(ctx, var, VARIABLE_NAME).into(),
            function,
            ty,
            file: file_path(LLVMDIVariableGetFile(var)).into(),
            line: LLVMDIVariableGetLine(var),
            thread_handle: ty_md.is_some_and(|m| is_thread_handle(ctx, m)),
        }
    }

    /// The debug variable of a global, if it has one.
    pub(crate) unsafe fn global(
        &mut self,
        t: &mut Translator,
        g: LLVMValueRef,
    ) -> Option<DebugVar> {
        let ctx = LLVMGetModuleContext(t.module);
        let dbg = LLVMGetMDKindIDInContext(ctx, c"dbg".as_ptr(), 3);
        let mut n = 0usize;
        let entries = LLVMGlobalCopyAllMetadata(g, &mut n);
        if entries.is_null() {
            return None;
        }
        let mut found = None;
        for i in 0..n as u32 {
            if LLVMValueMetadataEntriesGetKind(entries, i) == dbg {
                found = Some(LLVMValueMetadataEntriesGetMetadata(entries, i));
                break;
            }
        }
        LLVMDisposeValueMetadataEntries(entries);
        let gve = found?;
        let var = LLVMDIGlobalVariableExpressionGetVariable(gve);
        (!var.is_null()).then(|| self.variable(t, var))
    }

    /// The variable a `llvm.dbg.declare` or `llvm.dbg.assign` call gives to an alloca
    /// (its operand `address`): (the alloca, the variable node).
    pub(crate) unsafe fn declare(
        call: LLVMValueRef,
        address: u32,
    ) -> Option<(LLVMValueRef, LLVMMetadataRef)> {
        if LLVMGetNumOperands(call) < (address as i32 + 2).max(3) {
            return None;
        }
        let addr = LLVMGetOperand(call, address);
        let var = LLVMGetOperand(call, 1);
        if addr.is_null() || var.is_null() || LLVMGetMDNodeNumOperands(addr) != 1 {
            return None;
        }
        let mut inner = [std::ptr::null_mut()];
        LLVMGetMDNodeOperands(addr, inner.as_mut_ptr());
        let alloca = inner[0];
        if alloca.is_null() || LLVMIsAAllocaInst(alloca).is_null() {
            return None;
        }
        Some((alloca, LLVMValueAsMetadata(var)))
    }

    unsafe fn ty(
        &mut self,
        t: &mut Translator,
        ctx: LLVMContextRef,
        md: LLVMMetadataRef,
    ) -> DiTypeId {
        if let Some(&id) = self.types.get(&md) {
            return id;
        }
        let types = &mut t.debug.types;
        let id = types.len() as DiTypeId;
        // A placeholder first: records can point to themselves (`struct node *next`).
        types.push(DiType::Scalar {
            size: 0,
            encoding: Encoding::Unknown,
        });
        self.types.insert(md, id);
        let size = LLVMDITypeGetSizeInBits(md) / 8;
        let tag = LLVMGetDINodeTag(md);
        let base = || operand_md(ctx, md, TYPE_BASE);
        let resolved = match kind(md) {
            LLVMMetadataKind::LLVMDIDerivedTypeMetadataKind => match tag {
                TAG_POINTER | TAG_REFERENCE | TAG_RVALUE_REFERENCE => DiType::Pointer {
                    pointee: base().map(|b| self.ty(t, ctx, b)),
                },
                // typedef, const, volatile, _Atomic, restrict: the type underneath.
                _ => match base() {
                    Some(b) => {
                        let inner = self.ty(t, ctx, b);
                        t.debug.types[inner as usize].clone()
                    }
                    None => DiType::Scalar {
                        size,
                        encoding: Encoding::Unknown,
                    },
                },
            },
            LLVMMetadataKind::LLVMDICompositeTypeMetadataKind => match tag {
                TAG_ARRAY => self.array(t, ctx, md, size),
                TAG_STRUCTURE | TAG_CLASS | TAG_UNION => DiType::Record {
                    name: operand_str(ctx, md, TYPE_NAME).into(),
                    size,
                    members: self.members(t, ctx, md),
                },
                // An enum reads as its underlying type, when the node names one.
                TAG_ENUMERATION => {
                    let inner = base().map(|b| self.ty(t, ctx, b));
                    let encoding = match inner.map(|i| &t.debug.types[i as usize]) {
                        Some(DiType::Scalar { encoding, .. }) => *encoding,
                        _ => Encoding::Unknown,
                    };
                    DiType::Scalar { size, encoding }
                }
                _ => DiType::Scalar {
                    size,
                    encoding: Encoding::Unknown,
                },
            },
            LLVMMetadataKind::LLVMDIBasicTypeMetadataKind => DiType::Scalar {
                size,
                encoding: basic_encoding(ctx, md),
            },
            _ => DiType::Scalar {
                size,
                encoding: Encoding::Unknown,
            },
        };
        t.debug.types[id as usize] = resolved;
        id
    }

    unsafe fn members(
        &mut self,
        t: &mut Translator,
        ctx: LLVMContextRef,
        md: LLVMMetadataRef,
    ) -> Vec<DiMember> {
        let Some(elements) = operand_md(ctx, md, COMPOSITE_ELEMENTS) else {
            return Vec::new();
        };
        let mut members = Vec::new();
        for e in operands(ctx, elements) {
            if e.is_null() {
                continue;
            }
            let m = LLVMValueAsMetadata(e);
            if !matches!(kind(m), LLVMMetadataKind::LLVMDIDerivedTypeMetadataKind) {
                continue; // methods, template parameters
            }
            let tag = LLVMGetDINodeTag(m);
            if (tag != TAG_MEMBER && tag != TAG_INHERITANCE)
                || LLVMDITypeGetFlags(m) & LLVMDIFlagStaticMember != 0
            {
                continue;
            }
            let Some(base) = operand_md(ctx, m, TYPE_BASE) else {
                continue;
            };
            let ty = self.ty(t, ctx, base);
            members.push(DiMember {
                // A base class's fields read as the derived object's own.
                name: if tag == TAG_INHERITANCE {
                    Arc::from("")
                } else {
                    operand_str(ctx, m, TYPE_NAME).into()
                },
                offset: LLVMDITypeGetOffsetInBits(m) / 8,
                ty,
            });
        }
        members.sort_by_key(|m| m.offset);
        members
    }

    /// `T a[2][3]`: an array of 2 arrays of 3 T.
    unsafe fn array(
        &mut self,
        t: &mut Translator,
        ctx: LLVMContextRef,
        md: LLVMMetadataRef,
        size: u64,
    ) -> DiType {
        let Some(base) = operand_md(ctx, md, TYPE_BASE) else {
            return DiType::Scalar {
                size,
                encoding: Encoding::Unknown,
            };
        };
        let elem = self.ty(t, ctx, base);
        let mut counts = Vec::new();
        if let Some(elements) = operand_md(ctx, md, COMPOSITE_ELEMENTS) {
            for sub in operands(ctx, elements) {
                if sub.is_null() {
                    continue;
                }
                let count = operands(ctx, LLVMValueAsMetadata(sub))
                    .get(SUBRANGE_COUNT as usize)
                    .copied()
                    .filter(|c| !c.is_null() && !LLVMIsAConstantInt(*c).is_null())
                    .map(|c| LLVMConstIntGetSExtValue(c).max(0) as u64)
                    .unwrap_or(0);
                counts.push(count);
            }
        }
        let mut stride = t.debug.size(elem).unwrap_or(0);
        let mut cur = elem;
        // Innermost dimension first.
        for (i, &count) in counts.iter().enumerate().rev() {
            let arr = DiType::Array {
                elem: cur,
                stride,
                count,
            };
            if i == 0 {
                return arr;
            }
            t.debug.types.push(arr);
            cur = (t.debug.types.len() - 1) as DiTypeId;
            stride *= count;
        }
        DiType::Array {
            elem,
            stride,
            count: 0,
        }
    }
}

/// A DIBasicType's `encoding:` field. The LLVM C API has no getter for it and it is no
/// operand, so it is read from the node's printed form (`!DIBasicType(name: "int",
/// size: 32, encoding: DW_ATE_signed)`), whose spelling LLVM's assembly writer fixes.
unsafe fn basic_encoding(ctx: LLVMContextRef, md: LLVMMetadataRef) -> Encoding {
    let printed = LLVMPrintValueToString(LLVMMetadataAsValue(ctx, md));
    if printed.is_null() {
        return Encoding::Unknown;
    }
    let text = std::ffi::CStr::from_ptr(printed)
        .to_string_lossy()
        .into_owned();
    LLVMDisposeMessage(printed);
    let Some(rest) = text.split("encoding: DW_ATE_").nth(1) else {
        return Encoding::Unknown;
    };
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    match name.as_str() {
        "signed" | "signed_char" | "signed_fixed" => Encoding::Signed,
        "unsigned" | "unsigned_char" | "unsigned_fixed" | "UTF" | "ASCII" | "UCS" => {
            Encoding::Unsigned
        }
        "boolean" => Encoding::Boolean,
        "float" => Encoding::Float,
        _ => Encoding::Unknown,
    }
}

/// `pthread_t`, `std::thread` (also `std::jthread`), through typedefs, qualifiers and arrays.
unsafe fn is_thread_handle(ctx: LLVMContextRef, md: LLVMMetadataRef) -> bool {
    let mut cur = md;
    for _ in 0..64 {
        let name = operand_str(ctx, cur, TYPE_NAME);
        if name == "pthread_t" {
            return true;
        }
        let next = match kind(cur) {
            LLVMMetadataKind::LLVMDIDerivedTypeMetadataKind => {
                let tag = LLVMGetDINodeTag(cur);
                if tag == TAG_POINTER || tag == TAG_REFERENCE || tag == TAG_RVALUE_REFERENCE {
                    return false;
                }
                operand_md(ctx, cur, TYPE_BASE)
            }
            LLVMMetadataKind::LLVMDICompositeTypeMetadataKind => {
                if LLVMGetDINodeTag(cur) == TAG_ARRAY {
                    operand_md(ctx, cur, TYPE_BASE)
                } else {
                    let id = operand_str(ctx, cur, COMPOSITE_IDENTIFIER);
                    return id.ends_with("St6thread")
                        || id.ends_with("St7jthread")
                        || id.contains("St3__16thread");
                }
            }
            _ => None,
        };
        match next {
            Some(n) => cur = n,
            None => return false,
        }
    }
    false
}
