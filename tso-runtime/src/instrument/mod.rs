//! The delayed-flush instrumentation pass: rewrites an LLVM 19 module in place so that
//! the program itself simulates x86-TSO store buffers by calling the `__tso_*` runtime
//! (see [`crate::abi`] and ARCHITECTURE.md, "Semantics").
//!
//! What is rewritten, per defined function:
//! - every `load`/`store` (any ordering, volatile or not — volatile is an ordinary x86
//!   access) becomes `__tso_load_N`/`__tso_store_N` for 1/2/4/8-byte scalars (pointers via
//!   ptrtoint/inttoptr, floats via bitcast, odd integer widths via zext/trunc), or
//!   `__tso_load_bytes`/`__tso_store_bytes` through a per-function temporary alloca in the
//!   entry block for i128, x86_fp80, aggregates, vectors and other sizes;
//!   a `seq_cst` store is followed by `__tso_fence()` (x86 compiles it to `xchg`/`mov;mfence`);
//! - `atomicrmw` → `__tso_rmw_N(addr, operand, op)` with the [`crate::abi::RmwOp`] code;
//!   `cmpxchg` → `__tso_cmpxchg_N` (success and failure orders) and the `{T, i1}`
//!   result is rebuilt with `icmp eq` (x86 never fails a weak one spuriously); with
//!   `keep_orders` (C11) a `cmpxchg weak` → `__tso_cmpxchg_weak_N`, which returns
//!   the `{T, i1}` itself (it may fail although the values are equal);
//! - `fence seq_cst` → `__tso_fence()`; acquire/release/acq_rel fences and every
//!   `syncscope("singlethread")` fence are deleted (no-ops on x86-TSO). With
//!   `keep_orders` (C11) every thread fence → `__tso_fence_order(order)` and a
//!   `seq_cst` store gets no `__tso_fence()`;
//! - `llvm.memcpy/memmove/memset` (also `.inline` and `.element.unordered.atomic`) →
//!   `__tso_memcpy/memmove/memset` with an i64 length;
//! - inline asm that is a full fence (`mfence`, the locked no-op `lock; addl $0,(%rsp)`)
//!   → `__tso_fence()`; `lfence`/`sfence` are deleted; the empty asm (compiler
//!   barrier), `pause` and `nop` are kept; other asm is an error. The engine's
//!   `loader::asm` classifies the text, for the SC engine too.
//!
//! **External calls.** Every call to a function that is only declared in the module
//! (libc, pthreads, out-of-line `std::thread`/`std::mutex` code, `malloc`, `printf`, ...)
//! gets `__tso_fence()` before and after it, except the runtime itself (`__tso_*`),
//! LLVM intrinsics, `tso_choose`, `__VERIFIER_nondet_*` and `__VERIFIER_assume`. Why:
//! the engine implements those functions by reading and writing object memory directly,
//! so the caller's buffered stores must be in memory first (the library sees them) and
//! the library's effects are not buffered; and pthread/C++ synchronisation primitives
//! are locked instructions on x86, which drain the buffer. This is sound (it never adds
//! behaviours) and only loses reorderings of a thread's stores across a library call.
//! Indirect calls get no fences (the callee is unknown; see "Known gaps" in the report).
//!
//! **Releasing memory.** `__tso_evict(p)` is called before `free`, `realloc` (the old
//! object may be released; the fence before it already wrote the caller's stores out,
//! so the copy sees them), and the C++ `operator delete`/`delete[]` variants; before each
//! `ret` for every instrumented alloca of the function that dominates that `ret`; and
//! before `llvm.lifetime.end` of an instrumented alloca.
//!
//! **Static locals ("+s").** An alloca whose address never escapes (it, and GEPs of it,
//! are only the address operand of `load`/`store` or used by lifetime/debug intrinsics)
//! cannot be seen by another thread: its accesses stay plain and it needs no eviction.
//! [`InstrumentOptions::static_locals`] turns this off for measurement.
//!
//! Loads straight from a constant global (string literals, `const` tables) stay plain:
//! nothing can ever store to them. Every inserted instruction carries the `!dbg`
//! location of the instruction it replaces or accompanies.
//!
//! **Known gaps** (each is an [`InstrumentError::Unsupported`] unless noted):
//! 16-byte `atomicrmw`/`cmpxchg` (the ABI has no bytes form); masked/VP memory
//! intrinsics and scalable vectors; non-zero address spaces; `callbr` to a library
//! function; inline asm other than the forms above. Silently approximated: indirect
//! calls get no fences; a `musttail` library call gets no fence after it; an alloca
//! that does not dominate a `ret` (a VLA on one path) is not evicted there, and one in
//! a loop is evicted once (its last instance); `llvm.stackrestore` is ignored. The
//! runtime must accept `__tso_evict` of null and of an already evicted or dead object
//! (a slot is evicted at `lifetime.end` and again at `ret`).

mod atomics;
mod calls;
mod declare;
mod escape;
mod frame;
pub(crate) mod llvm;
mod memory_ops;
mod rewriter;
mod scalar;

use inkwell::module::Module;
use inkwell::values::{FunctionValue, InstructionOpcode, InstructionValue};
use thiserror::Error;

use self::declare::TsoFunctions;
use self::rewriter::Rewriter;

/// Configuration of the pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstrumentOptions {
    /// Leave accesses to non-escaping allocas uninstrumented ("+s"). Default: true.
    pub static_locals: bool,
    /// Source positions of stores (and memcpy/memset calls) after which the pass
    /// inserts `__tso_fence()`: how `--suggest-fences` tries a candidate placement
    /// without editing the user's file. Matched exactly against the debug location
    /// (file as the engine records it, line, column).
    pub fences_after: Vec<SourcePoint>,
    /// Keep what the C11 model needs and x86 drops: every thread fence becomes
    /// `__tso_fence_order(order)`, and a seq_cst store gets no `__tso_fence()` after
    /// it (its order says seq_cst). Default: false (x86-TSO).
    pub keep_orders: bool,
}

impl Default for InstrumentOptions {
    fn default() -> Self {
        InstrumentOptions {
            static_locals: true,
            fences_after: Vec::new(),
            keep_orders: false,
        }
    }
}

/// A source position: the file as the engine records it (see
/// `tso_engine::loader::debug_location`), line and column.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SourcePoint {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

impl SourcePoint {
    /// The position of an instruction (None without a debug location).
    pub fn of_instruction(inst: InstructionValue<'_>) -> Option<SourcePoint> {
        tso_engine::instruction_location(inst).map(|l| SourcePoint {
            file: l.file.to_string(),
            line: l.line,
            column: l.column,
        })
    }
}

/// What the pass did, for reports and measurements.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InstrumentStats {
    /// Loads turned into `__tso_load_N` or `__tso_load_bytes`.
    pub loads: u64,
    /// Stores turned into `__tso_store_N` or `__tso_store_bytes`.
    pub stores: u64,
    /// Of `loads + stores`, those that went through the `_bytes` variants.
    pub byte_accesses: u64,
    /// `atomicrmw` turned into `__tso_rmw_N`.
    pub rmws: u64,
    /// `cmpxchg` turned into `__tso_cmpxchg_N` or `__tso_cmpxchg_weak_N`.
    pub cmpxchgs: u64,
    /// Of `cmpxchgs`, the weak ones turned into `__tso_cmpxchg_weak_N` (C11 only).
    pub weak_cmpxchgs: u64,
    /// `__tso_fence()` calls inserted (seq_cst fences, seq_cst stores, mfence asm, external calls).
    pub fences: u64,
    /// Fences and asm deleted because they are no-ops on x86-TSO.
    pub removed_fences: u64,
    /// External calls wrapped in fences.
    pub external_calls: u64,
    /// memcpy/memmove/memset intrinsics redirected.
    pub mem_intrinsics: u64,
    /// `__tso_evict` calls inserted.
    pub evicts: u64,
    /// Fences inserted after stores named by [`InstrumentOptions::fences_after`].
    pub placed_fences: u64,
    /// Allocas proven not to escape (left uninstrumented).
    pub static_locals: u64,
    /// Loads and stores left plain because they access a static local.
    pub static_local_accesses: u64,
    /// Loads left plain because they read a constant global.
    pub constant_loads: u64,
}

/// Why the pass could not instrument a module.
#[derive(Debug, Error)]
pub enum InstrumentError {
    #[error("unsupported construct in function `{function}` at {location}: {what}")]
    Unsupported {
        function: String,
        location: String,
        what: String,
    },
    #[error("the module already declares `{name}` with a different type: {found}")]
    ConflictingDeclaration { name: String, found: String },
    #[error("LLVM builder failed in function `{function}`: {message}")]
    Builder { function: String, message: String },
    #[error("the instrumented module does not verify: {0}")]
    Verification(String),
}

/// Rewrites `module` in place (see the module documentation), then verifies it.
pub fn instrument_module(
    module: &Module<'_>,
    opts: &InstrumentOptions,
) -> Result<InstrumentStats, InstrumentError> {
    let tso = TsoFunctions::new(module)?;
    let mut stats = InstrumentStats::default();
    let functions: Vec<FunctionValue<'_>> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .collect();
    for function in functions {
        instrument_function(module, &tso, function, opts, &mut stats)?;
    }
    module
        .verify()
        .map_err(|e| InstrumentError::Verification(e.to_string()))?;
    Ok(stats)
}

fn instrument_function<'ctx>(
    module: &Module<'ctx>,
    tso: &TsoFunctions<'_, 'ctx>,
    function: FunctionValue<'ctx>,
    opts: &InstrumentOptions,
    stats: &mut InstrumentStats,
) -> Result<(), InstrumentError> {
    // Analyse before rewriting: the rewritten accesses pass the address to calls,
    // which would make every alloca look escaping.
    let locals = escape::analyse(function, opts.static_locals);
    stats.static_locals += locals.static_allocas as u64;
    let instructions: Vec<InstructionValue<'ctx>> = function
        .get_basic_block_iter()
        .flat_map(|bb| bb.get_instructions())
        .collect();
    let mut rw = Rewriter::new(module, tso, function, stats);
    let fence_after = |inst: InstructionValue<'ctx>| {
        !opts.fences_after.is_empty()
            && SourcePoint::of_instruction(inst).is_some_and(|p| opts.fences_after.contains(&p))
    };
    for inst in instructions {
        match inst.get_opcode() {
            InstructionOpcode::Load => memory_ops::rewrite_load(&mut rw, inst, &locals)?,
            InstructionOpcode::Store => memory_ops::rewrite_store(
                &mut rw,
                inst,
                &locals,
                fence_after(inst),
                opts.keep_orders,
            )?,
            InstructionOpcode::AtomicRMW => atomics::rewrite_rmw(&mut rw, inst)?,
            InstructionOpcode::AtomicCmpXchg => {
                atomics::rewrite_cmpxchg(&mut rw, inst, opts.keep_orders)?
            }
            InstructionOpcode::Fence => atomics::rewrite_fence(&mut rw, inst, opts.keep_orders)?,
            InstructionOpcode::Call | InstructionOpcode::Invoke | InstructionOpcode::CallBr => {
                calls::rewrite_call(&mut rw, inst, &locals, fence_after(inst))?
            }
            InstructionOpcode::Return => frame::evict_before_return(&mut rw, inst, &locals)?,
            _ => {}
        }
    }
    Ok(())
}
