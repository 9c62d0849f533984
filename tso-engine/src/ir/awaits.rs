//! Awaits: loops whose failing iteration only reads. Found once per program, when the
//! machine is built (the natives decide which calls only read).
//!
//! A loop qualifies when every instruction of every block of it (a natural loop: its
//! header and the blocks that reach a back edge to it without passing the header) has
//! no effect another thread or a later step could see, other than reading memory:
//! arithmetic, comparisons, branches, loads of any order, fences, stores to the
//! function's own frame-private slots (`Alloca::escapes` false), calls to natives that
//! only read or let store buffers drain (`Native::reads_only`: the TSO runtime's loads
//! and fences) and calls to program functions made only of such instructions (their
//! own slots die on return). No atomic read-modify-write, no allocation in the loop,
//! no indirect call.
//!
//! The interpreter (`interp/mod.rs` `run_transition`) uses it dynamically: a transition
//! that starts at a stop point inside such a loop, stays inside it (and in the
//! functions it calls), and comes back to the same instruction with the thread's live
//! registers and slots unchanged is a *failing iteration*: it returns `Step::Await`,
//! and the searches treat it as a blocked thread (no successor). Why that is sound:
//! - **It has no effect.** Nothing it ran writes memory another thread can read,
//!   allocates or outputs; the thread is back where it started with the same live
//!   values. What it may change is dropped with its successor: the TSO runtime's record
//!   of which buffered stores reached memory (flushes a run may always delay) and race
//!   data (from reads only). Deleting the iteration from any run therefore leaves a
//!   run of the program that reaches the same later states: no value combination,
//!   outcome or error is lost.
//! - **No carried value is lost.** Registers live at the stop point are compared; an
//!   iteration that changes one (a counter, a CAS retry carrying the value it read)
//!   is not a failing iteration but an ordinary transition.
//! - **Memory errors are still found.** The iteration is run every time its thread is
//!   expanded; an error in it is reported before its result is judged.
//! - **Waking is exact.** Nothing is stored about a waiting thread: at every state the
//!   iteration runs again against that state (its reads see the thread's own buffer
//!   first, and every flush outcome the runtime offers), so it moves as soon as a write
//!   or a flush by another thread lets it. A state is the same whether a thread just
//!   failed there or not, so awaits never split states.
//!
//! Only iterations that fit in one transition (one visible read) are reduced: a loop
//! with two shared reads, or a `sched_yield` (a visible action of its own), runs as
//! before. A state where no thread can move and some thread waits at an await is
//! `non-terminating` (`explore::observers::Deadlock`).

use super::{BlockId, Callee, FuncId, Inst, Intrinsic, Operand, Program};

/// Per function, per block: the await loop (its header block) the block belongs to,
/// the outermost one when several qualify.
#[derive(Clone, Debug, Default)]
pub(crate) struct Awaits {
    loops: Vec<Box<[Option<BlockId>]>>,
    /// (function, header) of every await loop, for `-v`.
    pub(crate) found: Vec<(FuncId, BlockId)>,
}

impl Awaits {
    /// `reads_only_native(f)`: the declared function `f` resolves to a native whose
    /// only effects are reads (and drains of the caller's buffer).
    pub(crate) fn find(program: &Program, reads_only_native: impl Fn(FuncId) -> bool) -> Awaits {
        let pure = pure_functions(program, &reads_only_native);
        let mut out = Awaits::default();
        for (fid, f) in program.functions.iter().enumerate() {
            let Some(body) = &f.body else {
                out.loops.push(Box::new([]));
                continue;
            };
            let mut of_block: Vec<Option<BlockId>> = vec![None; body.blocks.len()];
            let mut loops = natural_loops(&body.blocks);
            // Outermost first: it claims its blocks before the loops inside it.
            loops.sort_by_key(|(h, blocks)| (std::cmp::Reverse(blocks.len()), *h));
            for (header, blocks) in loops {
                let slots = private_slots(body);
                let qualifies = blocks.iter().all(|&b| {
                    body.blocks[b as usize]
                        .insts
                        .iter()
                        .all(|i| reads_only(i, &slots, &pure, &reads_only_native, false))
                });
                if !qualifies {
                    continue;
                }
                let mut claimed = false;
                for &b in &blocks {
                    if of_block[b as usize].is_none() {
                        of_block[b as usize] = Some(header);
                        claimed = true;
                    }
                }
                if claimed {
                    out.found.push((fid as FuncId, header));
                }
            }
            out.loops.push(of_block.into());
        }
        out
    }

    /// The await loop block `block` of function `func` belongs to.
    #[inline]
    pub(crate) fn loop_of(&self, func: FuncId, block: BlockId) -> Option<BlockId> {
        self.loops
            .get(func as usize)
            .and_then(|l| l.get(block as usize).copied().flatten())
    }
}

/// Registers holding the address of a frame-private slot (a non-escaping alloca).
fn private_slots(body: &super::Body) -> Vec<bool> {
    let mut regs = Vec::new();
    for b in body.blocks.iter() {
        for i in b.insts.iter() {
            if let Inst::Alloca {
                dst,
                escapes: false,
                ..
            } = i
            {
                if regs.len() <= *dst as usize {
                    regs.resize(*dst as usize + 1, false);
                }
                regs[*dst as usize] = true;
            }
        }
    }
    regs
}

/// Whether `inst` only reads (see the module doc). `in_callee`: allocas are allowed
/// there (their slots die when the callee returns) and so is returning.
fn reads_only(
    inst: &Inst,
    slots: &[bool],
    pure: &[bool],
    reads_only_native: &impl Fn(FuncId) -> bool,
    in_callee: bool,
) -> bool {
    match inst {
        Inst::Bin { .. }
        | Inst::FNeg { .. }
        | Inst::ICmp { .. }
        | Inst::FCmp { .. }
        | Inst::Select { .. }
        | Inst::Cast { .. }
        | Inst::Gep { .. }
        | Inst::Load { .. }
        | Inst::Fence { .. }
        | Inst::ExtractValue { .. }
        | Inst::InsertValue { .. }
        | Inst::ExtractElement { .. }
        | Inst::InsertElement { .. }
        | Inst::ShuffleVector { .. }
        | Inst::Freeze { .. }
        | Inst::Br { .. }
        | Inst::CondBr { .. }
        | Inst::Switch { .. }
        | Inst::Unreachable
        | Inst::Unsupported { .. } => true,
        Inst::Store { ptr, .. } => {
            matches!(ptr, Operand::Reg(r) if slots.get(*r as usize).copied().unwrap_or(false))
        }
        Inst::Alloca { .. } | Inst::Ret { .. } => in_callee,
        Inst::CmpXchg { .. } | Inst::AtomicRmw { .. } => false,
        Inst::Call { callee, .. } => match callee {
            Callee::AsmFence => true,
            Callee::Intrinsic(i) => !matches!(
                i,
                Intrinsic::Memcpy
                    | Intrinsic::Memmove
                    | Intrinsic::Memset
                    | Intrinsic::StackSave
                    | Intrinsic::StackRestore
                    | Intrinsic::VaStart
                    | Intrinsic::VaEnd
                    | Intrinsic::VaCopy
            ),
            Callee::Direct(f) => {
                pure.get(*f as usize).copied().unwrap_or(false) || reads_only_native(*f)
            }
            Callee::Indirect(_) => false,
        },
    }
}

/// Program functions whose every instruction only reads (the greatest fixpoint, so a
/// recursive reader qualifies).
fn pure_functions(program: &Program, reads_only_native: &impl Fn(FuncId) -> bool) -> Vec<bool> {
    let mut pure: Vec<bool> = program.functions.iter().map(|f| f.body.is_some()).collect();
    let slots: Vec<Vec<bool>> = program
        .functions
        .iter()
        .map(|f| f.body.as_ref().map(private_slots).unwrap_or_default())
        .collect();
    loop {
        let mut changed = false;
        for (fid, f) in program.functions.iter().enumerate() {
            let Some(body) = &f.body else { continue };
            if !pure[fid] {
                continue;
            }
            let ok = body.blocks.iter().all(|b| {
                b.insts
                    .iter()
                    .all(|i| reads_only(i, &slots[fid], &pure, reads_only_native, true))
            });
            if !ok {
                pure[fid] = false;
                changed = true;
            }
        }
        if !changed {
            return pure;
        }
    }
}

/// The natural loops of a function, one per header (back edges found by a depth-first
/// walk from the entry; every CFG clang emits for C loops is reducible, and an edge to
/// a block on the walk's stack that is not a real back edge only makes a larger set).
fn natural_loops(blocks: &[super::Block]) -> Vec<(BlockId, Vec<BlockId>)> {
    let n = blocks.len();
    let succ: Vec<Vec<u32>> = blocks.iter().map(super::liveness::successors).collect();
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (b, s) in succ.iter().enumerate() {
        for &t in s {
            if (t as usize) < n {
                preds[t as usize].push(b as u32);
            }
        }
    }
    // Iterative DFS: 0 unseen, 1 on the stack, 2 done.
    let mut mark = vec![0u8; n];
    let mut back: Vec<(u32, u32)> = Vec::new();
    if n > 0 {
        let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
        mark[0] = 1;
        while let Some(&mut (b, ref mut k)) = stack.last_mut() {
            if let Some(&t) = succ[b as usize].get(*k) {
                *k += 1;
                if t as usize >= n {
                    continue;
                }
                match mark[t as usize] {
                    0 => {
                        mark[t as usize] = 1;
                        stack.push((t, 0));
                    }
                    1 => back.push((b, t)),
                    _ => {}
                }
            } else {
                mark[b as usize] = 2;
                stack.pop();
            }
        }
    }
    let mut by_header: std::collections::BTreeMap<u32, Vec<bool>> = Default::default();
    for (from, header) in back {
        let members = by_header.entry(header).or_insert_with(|| vec![false; n]);
        members[header as usize] = true;
        let mut work = vec![from];
        while let Some(b) = work.pop() {
            if members[b as usize] {
                continue;
            }
            members[b as usize] = true;
            work.extend(preds[b as usize].iter().copied());
        }
    }
    by_header
        .into_iter()
        .map(|(h, m)| {
            let blocks = (0..n as u32).filter(|&b| m[b as usize]).collect();
            (h, blocks)
        })
        .collect()
}
