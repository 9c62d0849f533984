//! Translating an LLVM module (via inkwell / the LLVM C API) into the engine's IR.
//! This is the only place that talks to LLVM; it runs once per program.

pub mod asm;
mod constants;
mod debuginfo;
mod functions;
mod intrinsics;
mod types;
pub use functions::mem_order as memory_order;

use crate::error::LoadError;
use crate::ir::{FuncId, Function, Global, GlobalId, Location, Program, TypeTable};
use inkwell::context::Context;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::target::{LLVMGetModuleDataLayout, LLVMTargetDataRef};
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use std::collections::HashMap;
use std::ffi::CStr;
use std::path::Path;

/// Parse a `.bc` or `.ll` file into an inkwell module owned by `ctx`.
pub fn parse_module<'ctx>(ctx: &'ctx Context, path: &Path) -> Result<Module<'ctx>, LoadError> {
    let shown = path.display().to_string();
    let buf = MemoryBuffer::create_from_file(path).map_err(|e| LoadError::Read {
        path: shown.clone(),
        message: e.to_string(),
    })?;
    let is_bitcode = buf.as_slice().starts_with(b"BC\xC0\xDE")
        || buf.as_slice().starts_with(&[0xDE, 0xC0, 0x17, 0x0B]);
    let module = if is_bitcode {
        Module::parse_bitcode_from_buffer(&buf, ctx).map_err(|e| LoadError::Invalid {
            path: shown.clone(),
            message: e.to_string(),
        })?
    } else {
        ctx.create_module_from_ir(buf)
            .map_err(|e| LoadError::Invalid {
                path: shown.clone(),
                message: e.to_string(),
            })?
    };
    module.verify().map_err(|e| LoadError::Invalid {
        path: shown,
        message: e.to_string(),
    })?;
    Ok(module)
}

/// Load a file and translate it in one go.
pub fn load_file(path: &Path) -> Result<Program, LoadError> {
    let ctx = Context::create();
    let module = parse_module(&ctx, path)?;
    Ok(translate(&module))
}

/// Translate a verified module.
pub fn translate(module: &Module<'_>) -> Program {
    let m = module.as_mut_ptr();
    let mut t = Translator::new(m);
    t.run();
    t.finish()
}

pub(crate) struct Translator {
    module: LLVMModuleRef,
    td: LLVMTargetDataRef,
    pub(crate) types: TypeTable,
    type_cache: HashMap<LLVMTypeRef, crate::ir::TyId>,
    pub globals: Vec<Global>,
    pub global_ids: HashMap<LLVMValueRef, GlobalId>,
    pub functions: Vec<Function>,
    pub function_ids: HashMap<LLVMValueRef, FuncId>,
    pub locations: Vec<Location>,
    location_ids: HashMap<Location, u32>,
    /// What a debug scope gives each location in it (see `scope_info`), by scope.
    scopes: HashMap<LLVMMetadataRef, ScopeInfo>,
    /// Functions' shown names by symbol (see `function_name`).
    function_names: HashMap<String, std::sync::Arc<str>>,
    constructors: Vec<FuncId>,
    pub debug: crate::ir::debug::DebugInfo,
    di: debuginfo::DiReader,
    /// The body being translated has an `undef`/`poison` operand.
    saw_undef: bool,
}

/// What a debug scope gives the locations in it.
#[derive(Clone)]
struct ScopeInfo {
    file: std::sync::Arc<str>,
    system: bool,
    function: Option<std::sync::Arc<str>>,
}

impl Translator {
    fn new(module: LLVMModuleRef) -> Translator {
        let td = unsafe { LLVMGetModuleDataLayout(module) };
        Translator {
            module,
            td,
            types: TypeTable::default(),
            type_cache: HashMap::new(),
            globals: Vec::new(),
            global_ids: HashMap::new(),
            functions: Vec::new(),
            function_ids: HashMap::new(),
            locations: Vec::new(),
            location_ids: HashMap::new(),
            scopes: HashMap::new(),
            function_names: HashMap::new(),
            constructors: Vec::new(),
            debug: Default::default(),
            di: Default::default(),
            saw_undef: false,
        }
    }

    fn run(&mut self) {
        // Number globals and functions first: initialisers and bodies refer to them.
        let mut gvs = Vec::new();
        unsafe {
            // Variables are declared by `llvm.dbg.declare` calls, which LLVM 19 may hold
            // as debug records instead; read them in the one form.
            if LLVMIsNewDbgInfoFormat(self.module) != 0 {
                LLVMSetIsNewDbgInfoFormat(self.module, 0);
            }
            let mut g = LLVMGetFirstGlobal(self.module);
            while !g.is_null() {
                let name = value_name(g);
                if name == "llvm.global_ctors" {
                    self.collect_ctors(g);
                } else if !name.starts_with("llvm.") {
                    self.global_ids.insert(g, self.globals.len() as GlobalId);
                    let vty = LLVMGlobalGetValueType(g);
                    let size = inkwell::llvm_sys::target::LLVMABISizeOfType(self.td, vty).max(1);
                    self.globals.push(Global {
                        name,
                        size,
                        constant: LLVMIsGlobalConstant(g) != 0,
                        init: Box::new([]),
                        init_ptrs: Box::new([]),
                    });
                    gvs.push(g);
                }
                g = LLVMGetNextGlobal(g);
            }
            let mut f = LLVMGetFirstFunction(self.module);
            let mut fvs = Vec::new();
            while !f.is_null() {
                self.function_ids.insert(f, self.functions.len() as FuncId);
                let decl = self.declare_function(f);
                self.functions.push(decl);
                fvs.push(f);
                f = LLVMGetNextFunction(f);
            }
            // Aliases: point at their aliasee's id.
            let mut a = LLVMGetFirstGlobalAlias(self.module);
            while !a.is_null() {
                let target = LLVMAliasGetAliasee(a);
                let base = constants::strip_casts(target);
                if let Some(&fid) = self.function_ids.get(&base) {
                    self.function_ids.insert(a, fid);
                } else if let Some(&gid) = self.global_ids.get(&base) {
                    self.global_ids.insert(a, gid);
                }
                a = LLVMGetNextGlobalAlias(a);
            }
            for g in gvs {
                self.init_global(g);
                let mut di = std::mem::take(&mut self.di);
                let var = di.global(self, g);
                self.di = di;
                self.debug.globals.push(var);
            }
            for f in fvs {
                if LLVMIsDeclaration(f) == 0 {
                    let fid = self.function_ids[&f];
                    let body = self.translate_body(f, fid);
                    self.functions[fid as usize].body = Some(body);
                }
            }
        }
    }

    fn finish(self) -> Program {
        let function_index = self
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name.clone(), i as FuncId))
            .collect();
        Program {
            types: self.types,
            functions: self.functions,
            globals: self.globals,
            locations: self.locations,
            function_index,
            constructors: self.constructors,
            debug: self.debug,
        }
    }

    unsafe fn collect_ctors(&mut self, g: LLVMValueRef) {
        let init = LLVMGetInitializer(g);
        if init.is_null() {
            return;
        }
        let n = LLVMGetArrayLength2(LLVMTypeOf(init));
        let mut entries = Vec::new();
        for i in 0..n {
            let e = LLVMGetAggregateElement(init, i as u32);
            if e.is_null() {
                continue;
            }
            let prio = LLVMGetAggregateElement(e, 0);
            let func = LLVMGetAggregateElement(e, 1);
            if prio.is_null() || func.is_null() {
                continue;
            }
            entries.push((LLVMConstIntGetZExtValue(prio), constants::strip_casts(func)));
        }
        entries.sort_by_key(|e| e.0);
        // Functions are numbered after globals; resolve names lazily in `finish_ctors`.
        self.pending_ctors(entries.into_iter().map(|e| e.1).collect());
    }

    fn pending_ctors(&mut self, funcs: Vec<LLVMValueRef>) {
        // Function ids are assigned in module order, which we can compute right away.
        unsafe {
            let mut order = HashMap::new();
            let mut f = LLVMGetFirstFunction(self.module);
            let mut i = 0u32;
            while !f.is_null() {
                order.insert(f, i);
                i += 1;
                f = LLVMGetNextFunction(f);
            }
            for f in funcs {
                if let Some(&id) = order.get(&f) {
                    self.constructors.push(id);
                }
            }
        }
    }

    pub(crate) fn location_of(&mut self, inst: LLVMValueRef) -> Option<u32> {
        // SAFETY: the loader only asks about instructions of the module it translates.
        unsafe {
            let di = inkwell::llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(inst);
            if di.is_null() {
                return None;
            }
            self.di_location(di)
        }
    }

    /// A DILocation and, through `inlinedAt`, the call sites it was inlined into.
    unsafe fn di_location(&mut self, di: LLVMMetadataRef) -> Option<u32> {
        use inkwell::llvm_sys::debuginfo::*;
        let line = LLVMDILocationGetLine(di);
        if line == 0 {
            return None;
        }
        let scope = LLVMDILocationGetScope(di);
        if scope.is_null() {
            return None;
        }
        let ScopeInfo {
            file,
            system,
            function,
        } = self.scope_info(scope);
        if file.is_empty() {
            return None;
        }
        let inlined = LLVMDILocationGetInlinedAt(di);
        let loc = Location {
            system,
            file,
            line,
            column: LLVMDILocationGetColumn(di),
            function,
            inlined_at: if inlined.is_null() {
                None
            } else {
                self.di_location(inlined)
            },
        };
        if let Some(&id) = self.location_ids.get(&loc) {
            return Some(id);
        }
        let id = self.locations.len() as u32;
        self.locations.push(loc.clone());
        self.location_ids.insert(loc, id);
        Some(id)
    }

    /// The file and function of debug scope `scope` (not null), worked out once per
    /// scope: every instruction has a location, and demangling the function's name for
    /// each one cost `bench/programs/prodcons_cxx.cpp` 16M instructions of its 790M.
    unsafe fn scope_info(&mut self, scope: LLVMMetadataRef) -> ScopeInfo {
        if let Some(info) = self.scopes.get(&scope) {
            return info.clone();
        }
        let file = debuginfo::file_path(inkwell::llvm_sys::debuginfo::LLVMDIScopeGetFile(scope));
        let ctx = LLVMGetModuleContext(self.module);
        let info = ScopeInfo {
            system: crate::ir::debug::is_system_header(&file),
            file: file.into(),
            function: debuginfo::scope_function(ctx, scope).map(|f| self.function_name(f)),
        };
        self.scopes.insert(scope, info.clone());
        info
    }

    /// The shown name of the function whose symbol is `symbol`, demangled once per
    /// function: the scopes and variables of one function share it, and a C++ symbol
    /// costs tens of thousands of instructions to demangle.
    fn function_name(&mut self, symbol: String) -> std::sync::Arc<str> {
        self.function_names
            .entry(symbol)
            .or_insert_with_key(|symbol| crate::ir::debug::display_name(symbol).into())
            .clone()
    }
}

/// The source position of an instruction as the engine records it: the debug
/// location's file joined with its directory, line and column (None without one).
/// The instrumentation pass uses the same rule to find instructions by position
/// (through [`instruction_location`]).
///
/// # Safety
/// `inst` must be a live instruction of a live module.
pub(crate) unsafe fn debug_location(inst: LLVMValueRef) -> Option<Location> {
    // SAFETY: the caller guarantees `inst` is live; strings are copied at once.
    unsafe {
        let line = LLVMGetDebugLocLine(inst);
        if line == 0 {
            return None;
        }
        let mut len = 0u32;
        let fp = LLVMGetDebugLocFilename(inst, &mut len);
        if fp.is_null() {
            return None;
        }
        let file =
            String::from_utf8_lossy(std::slice::from_raw_parts(fp as *const u8, len as usize))
                .into_owned();
        let mut dlen = 0u32;
        let dp = LLVMGetDebugLocDirectory(inst, &mut dlen);
        let dir = if dp.is_null() {
            String::new()
        } else {
            String::from_utf8_lossy(std::slice::from_raw_parts(dp as *const u8, dlen as usize))
                .into_owned()
        };
        let path = if file.starts_with('/') || dir.is_empty() {
            file
        } else {
            format!("{dir}/{file}")
        };
        Some(Location {
            system: crate::ir::debug::is_system_header(&path),
            file: path.into(),
            line,
            column: LLVMGetDebugLocColumn(inst),
            function: None,
            inlined_at: None,
        })
    }
}

/// [`debug_location`] of an inkwell instruction.
pub fn instruction_location(inst: inkwell::values::InstructionValue<'_>) -> Option<Location> {
    use inkwell::values::AsValueRef;
    // SAFETY: an inkwell instruction value is live while its module is.
    unsafe { debug_location(inst.as_value_ref()) }
}

pub(crate) fn value_name(v: LLVMValueRef) -> String {
    unsafe {
        let mut len = 0usize;
        let p = LLVMGetValueName2(v, &mut len);
        if p.is_null() {
            return String::new();
        }
        String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned()
    }
}

pub(crate) fn print_value(v: LLVMValueRef) -> String {
    unsafe {
        let p = LLVMPrintValueToString(v);
        if p.is_null() {
            return String::new();
        }
        let s = CStr::from_ptr(p).to_string_lossy().into_owned();
        LLVMDisposeMessage(p);
        s.trim().to_string()
    }
}
