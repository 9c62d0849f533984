//! Source-level edits of a program's memory orders, applied to its LLVM module before
//! anything else reads it: how `--suggest-fences` under C11 tries "make this load
//! acquire" or "put a release fence before this store" without editing the user's
//! file. An edit names an atomic access by its source position and kind, and changes
//! what the same edit of the source changes in the code clang emits: the access's
//! ordering (a compare-exchange's failure ordering follows, the strongest C11 allows
//! for it), or a thread fence next to it. Every later step (the pass, the race search,
//! the SC re-run) then checks the edited program, exactly as if the source said so.

use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::debuginfo as di;
use inkwell::llvm_sys::LLVMAtomicOrdering;
use inkwell::module::Module;
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};
use thiserror::Error;
use tso_engine::MemOrder;

use crate::instrument::llvm::copy_text;
use crate::instrument::SourcePoint;

/// The kinds of atomic access an edit can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AccessKind {
    Load,
    Store,
    /// A read-modify-write (`atomic_fetch_add`, `atomic_exchange`, …).
    Rmw,
    /// A compare-exchange: the order is the one on success.
    CmpXchg,
}

impl AccessKind {
    /// The word for the access in a sentence: "the store at mp.c:12".
    pub fn noun(self) -> &'static str {
        match self {
            AccessKind::Load => "load",
            AccessKind::Store => "store",
            AccessKind::Rmw => "read-modify-write",
            AccessKind::CmpXchg => "compare-exchange",
        }
    }

    /// Whether an access of this kind may have `order` in C11 (a load is never
    /// release, a store never acquire).
    pub fn allows(self, order: MemOrder) -> bool {
        match self {
            AccessKind::Load => !matches!(order, MemOrder::Release | MemOrder::AcqRel),
            AccessKind::Store => !matches!(order, MemOrder::Acquire | MemOrder::AcqRel),
            AccessKind::Rmw | AccessKind::CmpXchg => true,
        }
    }
}

/// An atomic access of the program: its position in the user's code ([`user_point`]),
/// kind and order. Several instructions may share a position: C++'s `std::atomic`
/// inlines one per order and picks among them at run time (`dynamic`); `order` is then
/// the weakest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtomicSite {
    pub point: SourcePoint,
    pub kind: AccessKind,
    pub order: MemOrder,
    pub dynamic: bool,
}

/// Where a fence goes, next to the access it is placed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Placement {
    Before,
    After,
}

/// One edit of the program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProgramEdit {
    /// The accesses of `kind` at `at` get `order`.
    Order {
        at: SourcePoint,
        kind: AccessKind,
        order: MemOrder,
    },
    /// A thread fence of `order` right before or after each access of `kind` at `at`.
    Fence {
        at: SourcePoint,
        kind: AccessKind,
        placement: Placement,
        order: MemOrder,
    },
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum EditError {
    #[error("no atomic {} at {}:{}:{}", .kind.noun(), .at.file, .at.line, .at.column)]
    NoAccess { at: SourcePoint, kind: AccessKind },
    #[error("a {} cannot be {order:?}", .kind.noun())]
    InvalidOrder { kind: AccessKind, order: MemOrder },
    #[error("the edited module does not verify: {0}")]
    Verification(String),
}

/// The atomic access an instruction is, with its order (None: not an atomic access,
/// or one that orders only against its own thread's signal handlers).
fn atomic_access(inst: InstructionValue<'_>) -> Option<(AccessKind, MemOrder)> {
    let v = inst.as_value_ref();
    let kind = match inst.get_opcode() {
        InstructionOpcode::Load => AccessKind::Load,
        InstructionOpcode::Store => AccessKind::Store,
        InstructionOpcode::AtomicRMW => AccessKind::Rmw,
        InstructionOpcode::AtomicCmpXchg => AccessKind::CmpXchg,
        _ => return None,
    };
    // SAFETY: `inst` is a live load, store, atomicrmw or cmpxchg, which all carry an
    // ordering (a compare-exchange's is read with its own call).
    let order = unsafe {
        if kind == AccessKind::CmpXchg {
            c::LLVMGetCmpXchgSuccessOrdering(v)
        } else {
            c::LLVMGetOrdering(v)
        }
    };
    let order = tso_engine::memory_order(order);
    // SAFETY: as above; only atomic instructions are asked their scope.
    let single_thread = order.is_atomic() && unsafe { c::LLVMIsAtomicSingleThread(v) != 0 };
    (order.is_atomic() && !single_thread).then_some((kind, order))
}

/// The position in the user's code an instruction stands for: its own, or for code
/// inlined from a header of the C or C++ library (`std::atomic<T>::store` is inlined
/// even at -O0), the first call site up the inlining chain outside such headers, the
/// line a trace shows for it. None without debug information or outside user code.
pub fn user_point(inst: InstructionValue<'_>) -> Option<SourcePoint> {
    // SAFETY: reading the metadata of a live instruction; strings are copied at once.
    unsafe {
        let mut loc = di::LLVMInstructionGetDebugLoc(inst.as_value_ref());
        while !loc.is_null() {
            let line = di::LLVMDILocationGetLine(loc);
            let scope = di::LLVMDILocationGetScope(loc);
            let file = if scope.is_null() {
                std::ptr::null_mut()
            } else {
                di::LLVMDIScopeGetFile(scope)
            };
            if line != 0 && !file.is_null() {
                let (mut flen, mut dlen) = (0u32, 0u32);
                let name = copy_text(di::LLVMDIFileGetFilename(file, &mut flen), flen as usize);
                let dir = copy_text(di::LLVMDIFileGetDirectory(file, &mut dlen), dlen as usize);
                // Joined as the engine records a location (`tso_engine::instruction_location`).
                let path = if name.starts_with('/') || dir.is_empty() {
                    name
                } else {
                    format!("{dir}/{name}")
                };
                if !tso_engine::is_system_header(&path) {
                    return Some(SourcePoint {
                        file: path,
                        line,
                        column: di::LLVMDILocationGetColumn(loc),
                    });
                }
            }
            loc = di::LLVMDILocationGetInlinedAt(loc);
        }
        None
    }
}

fn instructions<'ctx>(module: &Module<'ctx>) -> Vec<InstructionValue<'ctx>> {
    module
        .get_functions()
        .flat_map(|f| f.get_basic_block_iter().collect::<Vec<_>>())
        .flat_map(|bb| bb.get_instructions().collect::<Vec<_>>())
        .collect()
}

/// The program's atomic accesses that have a source position, in module order, one
/// per position and kind.
pub fn atomic_sites(module: &Module<'_>) -> Vec<AtomicSite> {
    let mut out: Vec<AtomicSite> = Vec::new();
    for inst in instructions(module) {
        let (Some((kind, order)), Some(point)) = (atomic_access(inst), user_point(inst)) else {
            continue;
        };
        match out.iter_mut().find(|s| s.point == point && s.kind == kind) {
            Some(site) => {
                site.dynamic |= site.order != order;
                if strength(order) < strength(site.order) {
                    site.order = order;
                }
            }
            None => out.push(AtomicSite {
                point,
                kind,
                order,
                dynamic: false,
            }),
        }
    }
    out
}

/// The weakest order that promises what both do (acquire and release: acq_rel).
pub fn join(a: MemOrder, b: MemOrder) -> MemOrder {
    if at_least(a, b) {
        a
    } else if at_least(b, a) {
        b
    } else {
        MemOrder::AcqRel
    }
}

/// Orders by what they promise: relaxed < acquire, release < acq_rel < seq_cst
/// (acquire and release are incomparable; they share a rank).
pub fn strength(order: MemOrder) -> u8 {
    match order {
        MemOrder::NotAtomic => 0,
        MemOrder::Relaxed => 1,
        MemOrder::Acquire | MemOrder::Release => 2,
        MemOrder::AcqRel => 3,
        MemOrder::SeqCst => 4,
    }
}

/// Whether `a` promises everything `b` does.
pub fn at_least(a: MemOrder, b: MemOrder) -> bool {
    a == b || strength(a) > strength(b)
}

fn llvm_order(order: MemOrder) -> LLVMAtomicOrdering {
    use LLVMAtomicOrdering::*;
    match order {
        MemOrder::NotAtomic => LLVMAtomicOrderingNotAtomic,
        MemOrder::Relaxed => LLVMAtomicOrderingMonotonic,
        MemOrder::Acquire => LLVMAtomicOrderingAcquire,
        MemOrder::Release => LLVMAtomicOrderingRelease,
        MemOrder::AcqRel => LLVMAtomicOrderingAcquireRelease,
        MemOrder::SeqCst => LLVMAtomicOrderingSequentiallyConsistent,
    }
}

/// The failure order a compare-exchange gets with success order `success`: its load
/// part (C11 forbids release in a failure order), never weaker than it was.
pub fn failure_order(success: MemOrder, was: MemOrder) -> MemOrder {
    let load_part = match success {
        MemOrder::Release => MemOrder::Relaxed,
        MemOrder::AcqRel => MemOrder::Acquire,
        other => other,
    };
    if strength(was) > strength(load_part) {
        was
    } else {
        load_part
    }
}

/// Applies `edits` to `module`, then verifies it. Each edit must name an atomic access
/// of the program; the number of instructions changed or inserted is returned.
pub fn apply(module: &Module<'_>, edits: &[ProgramEdit]) -> Result<usize, EditError> {
    let mut changed = 0;
    for edit in edits {
        let (at, kind) = match edit {
            ProgramEdit::Order { at, kind, order } => {
                if !kind.allows(*order) || !order.is_atomic() {
                    return Err(EditError::InvalidOrder {
                        kind: *kind,
                        order: *order,
                    });
                }
                (at, *kind)
            }
            ProgramEdit::Fence { at, kind, .. } => (at, *kind),
        };
        let targets: Vec<InstructionValue<'_>> = instructions(module)
            .into_iter()
            .filter(|&i| {
                atomic_access(i).is_some_and(|(k, _)| k == kind)
                    && user_point(i).as_ref() == Some(at)
            })
            .collect();
        if targets.is_empty() {
            return Err(EditError::NoAccess {
                at: at.clone(),
                kind,
            });
        }
        for inst in targets {
            match edit {
                ProgramEdit::Order { order, .. } => set_order(inst, kind, *order),
                ProgramEdit::Fence {
                    placement, order, ..
                } => insert_fence(module, inst, *placement, *order),
            }
            changed += 1;
        }
    }
    module
        .verify()
        .map_err(|e| EditError::Verification(e.to_string()))?;
    Ok(changed)
}

/// Raises the access's order to at least `order` (never lowers it: of the
/// instructions of a run-time order, the one that runs keeps what the source wrote,
/// joined with the edit's).
fn set_order(inst: InstructionValue<'_>, kind: AccessKind, order: MemOrder) {
    let v = inst.as_value_ref();
    // SAFETY: `inst` is a live atomic access of `kind` (checked by the caller).
    unsafe {
        if kind == AccessKind::CmpXchg {
            let was = tso_engine::memory_order(c::LLVMGetCmpXchgSuccessOrdering(v));
            let was_failure = tso_engine::memory_order(c::LLVMGetCmpXchgFailureOrdering(v));
            let success = join(was, order);
            c::LLVMSetCmpXchgSuccessOrdering(v, llvm_order(success));
            let failure = failure_order(success, was_failure);
            c::LLVMSetCmpXchgFailureOrdering(v, llvm_order(failure));
        } else {
            let was = tso_engine::memory_order(c::LLVMGetOrdering(v));
            // `apply` lets a load or store be given only orders it may have, and those
            // join to one of them.
            c::LLVMSetOrdering(v, llvm_order(join(was, order)));
        }
    }
}

fn insert_fence(module: &Module<'_>, inst: InstructionValue<'_>, at: Placement, order: MemOrder) {
    let builder = module.get_context().create_builder();
    // An atomic access is never a terminator: there is always a next instruction.
    let Some(before) = (match at {
        Placement::Before => Some(inst),
        Placement::After => inst.get_next_instruction(),
    }) else {
        return;
    };
    builder.position_before(&before);
    // SAFETY: the builder is positioned in a live block; the fence takes the access's
    // debug location, so traces place it on the access's line.
    unsafe {
        let fence = c::LLVMBuildFence(builder.as_mut_ptr(), llvm_order(order), 0, c"".as_ptr());
        let loc = di::LLVMInstructionGetDebugLoc(inst.as_value_ref());
        if !loc.is_null() {
            di::LLVMInstructionSetDebugLoc(fence, loc);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_strength_is_the_c11_lattice() {
        use MemOrder::*;
        assert!(at_least(SeqCst, Release) && at_least(AcqRel, Acquire));
        assert!(!at_least(Acquire, Release) && !at_least(Release, Acquire));
        assert!(at_least(Release, Relaxed) && !at_least(Relaxed, Release));
    }

    #[test]
    fn a_compare_exchange_fails_with_the_load_part_of_its_order() {
        use MemOrder::*;
        assert_eq!(failure_order(Release, Relaxed), Relaxed);
        assert_eq!(failure_order(AcqRel, Relaxed), Acquire);
        assert_eq!(failure_order(SeqCst, Relaxed), SeqCst);
        assert_eq!(failure_order(Release, Acquire), Acquire);
    }

    #[test]
    fn loads_are_never_release_and_stores_never_acquire() {
        assert!(!AccessKind::Load.allows(MemOrder::Release));
        assert!(!AccessKind::Store.allows(MemOrder::Acquire));
        assert!(AccessKind::Rmw.allows(MemOrder::AcqRel));
    }
}
