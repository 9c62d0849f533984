//! Register liveness. A state stores only the registers that are live where a thread
//! stopped; dead values would otherwise split identical states apart.

use super::{Block, Inst, Operand, Reg};

/// The functions clang marks `returns_twice` that the library models (`libc/setjmp.rs`):
/// registers live after a call to one are live everywhere in the function.
pub(crate) const RETURNS_TWICE: &[&str] = &["setjmp", "_setjmp", "__sigsetjmp", "sigsetjmp"];

#[derive(Clone, Debug, Default)]
pub(crate) struct Liveness {
    /// Index of each block's first instruction in `sets`.
    block_start: Box<[u32]>,
    /// Live-in registers of every instruction where a thread may stop (empty otherwise).
    sets: Box<[Box<[Reg]>]>,
}

impl Liveness {
    #[inline]
    pub(crate) fn live_at(&self, block: u32, ip: u32) -> &[Reg] {
        let i = self.block_start[block as usize] + ip;
        &self.sets[i as usize]
    }

    /// `returns_twice` tells which calls may return a second time (setjmp): a longjmp
    /// from anywhere in the function (or below it) resumes right after such a call, an
    /// edge the CFG does not show, so what is live there counts as live everywhere.
    pub(crate) fn compute(
        blocks: &[Block],
        num_regs: u32,
        returns_twice: impl Fn(&Inst) -> bool,
    ) -> Liveness {
        let words = (num_regs as usize).div_ceil(64).max(1);
        let (uses, defs) = uses_and_defs(blocks, words);
        let live_out = live_out(blocks, words, &uses, &defs);
        let after_returns_twice = live_after_returns_twice(blocks, words, &live_out, returns_twice);
        stop_point_sets(blocks, &live_out, &after_returns_twice)
    }
}

/// A bit set of registers, one bit each.
type Bits = Vec<u64>;

/// Per block, the registers used before any definition in it and the registers it
/// defines (phi uses belong to predecessors, phi defs to the block).
fn uses_and_defs(blocks: &[Block], words: usize) -> (Vec<Bits>, Vec<Bits>) {
    let n = blocks.len();
    let mut uses = vec![vec![0u64; words]; n];
    let mut defs = vec![vec![0u64; words]; n];
    for (b, block) in blocks.iter().enumerate() {
        for phi in block.phis.iter() {
            set(&mut defs[b], phi.dst);
        }
        for inst in block.insts.iter() {
            for_each_use(inst, |r| {
                if !get(&defs[b], r) {
                    set(&mut uses[b], r);
                }
            });
            if let Some(d) = def_of(inst) {
                set(&mut defs[b], d);
            }
        }
    }
    (uses, defs)
}

/// The registers live at the end of each block: the backward data-flow fixpoint.
fn live_out(blocks: &[Block], words: usize, uses: &[Bits], defs: &[Bits]) -> Vec<Bits> {
    let n = blocks.len();
    let succs: Vec<Vec<u32>> = blocks.iter().map(successors).collect();
    // phi operands are live-out of the corresponding predecessor.
    let mut phi_out = vec![vec![0u64; words]; n];
    for block in blocks.iter() {
        for phi in block.phis.iter() {
            for (pred, op) in phi.incoming.iter() {
                if let Operand::Reg(r) = op {
                    set(&mut phi_out[*pred as usize], *r);
                }
            }
        }
    }
    let mut live_in = vec![vec![0u64; words]; n];
    let mut live_out = vec![vec![0u64; words]; n];
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            let mut out = phi_out[b].clone();
            for &s in &succs[b] {
                let s = s as usize;
                // live-in of s minus its phi defs
                for w in 0..words {
                    let mut v = live_in[s][w];
                    for phi in blocks[s].phis.iter() {
                        if (phi.dst as usize) / 64 == w {
                            v &= !(1u64 << (phi.dst % 64));
                        }
                    }
                    out[w] |= v;
                }
            }
            let mut inn = vec![0u64; words];
            for w in 0..words {
                inn[w] = uses[b][w] | (out[w] & !defs[b][w]);
            }
            // phi dsts are live at block entry (they are defined on the edge).
            for phi in blocks[b].phis.iter() {
                set(&mut inn, phi.dst);
            }
            if inn != live_in[b] || out != live_out[b] {
                live_in[b] = inn;
                live_out[b] = out;
                changed = true;
            }
        }
    }
    live_out
}

/// Registers live right after a returns-twice call.
fn live_after_returns_twice(
    blocks: &[Block],
    words: usize,
    live_out: &[Bits],
    returns_twice: impl Fn(&Inst) -> bool,
) -> Bits {
    let mut after_returns_twice = vec![0u64; words];
    for (b, block) in blocks.iter().enumerate() {
        let mut live = live_out[b].clone();
        for inst in block.insts.iter().rev() {
            if returns_twice(inst) {
                for w in 0..words {
                    after_returns_twice[w] |= live[w];
                }
            }
            if let Some(d) = def_of(inst) {
                clear(&mut live, d);
            }
            for_each_use(inst, |r| set(&mut live, r));
        }
    }
    after_returns_twice
}

/// The live registers at each instruction a thread can be stored at (see
/// `may_stop_at`), plus those live after a returns-twice call; empty elsewhere.
fn stop_point_sets(blocks: &[Block], live_out: &[Bits], after_returns_twice: &Bits) -> Liveness {
    let mut block_start = Vec::with_capacity(blocks.len());
    let mut sets: Vec<Box<[Reg]>> = Vec::new();
    for (b, block) in blocks.iter().enumerate() {
        block_start.push(sets.len() as u32);
        let base = sets.len();
        sets.resize(base + block.insts.len(), Box::new([]));
        let mut live = live_out[b].clone();
        for (i, inst) in block.insts.iter().enumerate().rev() {
            if let Some(d) = def_of(inst) {
                clear(&mut live, d);
            }
            for_each_use(inst, |r| set(&mut live, r));
            if is_stop_point(block, b, i) {
                let mut stored = live.clone();
                for (w, word) in stored.iter_mut().enumerate() {
                    *word |= after_returns_twice[w];
                }
                sets[base + i] = to_list(&stored);
            }
        }
    }
    Liveness {
        block_start: block_start.into(),
        sets: sets.into(),
    }
}

/// Whether a thread can be stored at instruction `i` of block `b`: `may_stop_at`; a new
/// thread (or the entry function) is stored before its first step; a transition also
/// ends right after a call that made a choice.
pub(crate) fn is_stop_point(block: &Block, b: usize, i: usize) -> bool {
    let after_call = i > 0 && matches!(block.insts[i - 1], Inst::Call { .. });
    may_stop_at(&block.insts[i]) || after_call || (b == 0 && i == 0)
}

/// Instructions at which a thread can be suspended in a stored state (a return ends
/// the thread or the process when it leaves the outermost frame: a scheduling point).
fn may_stop_at(inst: &Inst) -> bool {
    matches!(
        inst,
        Inst::Ret { .. }
            | Inst::Load { .. }
            | Inst::Store { .. }
            | Inst::CmpXchg { .. }
            | Inst::AtomicRmw { .. }
            | Inst::Call { .. }
    )
}

fn to_list(bits: &[u64]) -> Box<[Reg]> {
    let mut v = Vec::new();
    for (w, &word) in bits.iter().enumerate() {
        let mut x = word;
        while x != 0 {
            let t = x.trailing_zeros();
            v.push((w * 64) as u32 + t);
            x &= x - 1;
        }
    }
    v.into()
}

#[inline]
fn set(bits: &mut [u64], r: Reg) {
    bits[r as usize / 64] |= 1 << (r % 64);
}
#[inline]
fn clear(bits: &mut [u64], r: Reg) {
    bits[r as usize / 64] &= !(1 << (r % 64));
}
#[inline]
fn get(bits: &[u64], r: Reg) -> bool {
    bits[r as usize / 64] & (1 << (r % 64)) != 0
}

pub(crate) fn successors(block: &Block) -> Vec<u32> {
    match block.insts.last() {
        Some(Inst::Br { target }) => vec![*target],
        Some(Inst::CondBr {
            then_bb, else_bb, ..
        }) => vec![*then_bb, *else_bb],
        Some(Inst::Switch { cases, default, .. }) => {
            let mut v: Vec<u32> = cases.iter().map(|c| c.1).collect();
            v.push(*default);
            v
        }
        _ => vec![],
    }
}

pub(crate) fn def_of(inst: &Inst) -> Option<Reg> {
    use Inst::*;
    match inst {
        Bin { dst, .. }
        | FNeg { dst, .. }
        | ICmp { dst, .. }
        | FCmp { dst, .. }
        | Select { dst, .. }
        | Cast { dst, .. }
        | Gep { dst, .. }
        | Alloca { dst, .. }
        | Load { dst, .. }
        | CmpXchg { dst, .. }
        | AtomicRmw { dst, .. }
        | ExtractValue { dst, .. }
        | InsertValue { dst, .. }
        | ExtractElement { dst, .. }
        | InsertElement { dst, .. }
        | ShuffleVector { dst, .. }
        | Freeze { dst, .. } => Some(*dst),
        Call { dst, .. } => *dst,
        _ => None,
    }
}

pub(crate) fn for_each_use(inst: &Inst, mut f: impl FnMut(Reg)) {
    for_each_operand(inst, |o| {
        if let Operand::Reg(r) = o {
            f(*r)
        }
    })
}

/// Every operand `inst` reads (registers and constants).
pub(crate) fn for_each_operand(inst: &Inst, mut op: impl FnMut(&Operand)) {
    use Inst::*;
    match inst {
        Bin { a, b, .. } | ICmp { a, b, .. } | FCmp { a, b, .. } => {
            op(a);
            op(b)
        }
        FNeg { a, .. } | Cast { a, .. } | Freeze { a, .. } => op(a),
        Select { cond, a, b, .. } => {
            op(cond);
            op(a);
            op(b)
        }
        Gep { base, indices, .. } => {
            op(base);
            for (i, _, _) in indices.iter() {
                op(i)
            }
        }
        Alloca { count, .. } => op(count),
        Load { ptr, .. } => op(ptr),
        Store { val, ptr, .. } => {
            op(val);
            op(ptr)
        }
        CmpXchg {
            ptr, expected, new, ..
        } => {
            op(ptr);
            op(expected);
            op(new)
        }
        AtomicRmw { ptr, val, .. } => {
            op(ptr);
            op(val)
        }
        ExtractValue { agg, .. } => op(agg),
        InsertValue { agg, val, .. } => {
            op(agg);
            op(val)
        }
        ExtractElement { vec, idx, .. } => {
            op(vec);
            op(idx)
        }
        InsertElement { vec, val, idx, .. } => {
            op(vec);
            op(val);
            op(idx)
        }
        ShuffleVector { a, b, .. } => {
            op(a);
            op(b)
        }
        Call { callee, args, .. } => {
            if let super::Callee::Indirect(c) = callee {
                op(c)
            }
            for a in args.iter() {
                op(a)
            }
        }
        CondBr { cond, .. } => op(cond),
        Switch { val, .. } => op(val),
        Ret { val: Some(v) } => op(v),
        Fence { .. } | Br { .. } | Ret { val: None } | Unreachable | Unsupported { .. } => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinOp, Callee, IntPred, MemOrder, Phi};
    use crate::value::Val;

    fn reg(r: Reg) -> Operand {
        Operand::Reg(r)
    }
    fn k(v: u128) -> Operand {
        Operand::Const(Val::Int(v))
    }
    fn block(phis: Vec<Phi>, insts: Vec<Inst>) -> Block {
        let n = insts.len();
        Block {
            phis: phis.into(),
            insts: insts.into(),
            locs: vec![None; n].into(),
        }
    }
    fn add(dst: Reg, a: Operand, b: Operand) -> Inst {
        Inst::Bin {
            dst,
            op: BinOp::Add,
            ty: 0,
            a,
            b,
        }
    }
    fn call(dst: Option<Reg>, args: Vec<Operand>) -> Inst {
        Inst::Call {
            dst,
            callee: Callee::Direct(0),
            args: args.into(),
            ret_ty: 0,
            abi: None,
        }
    }

    #[test]
    fn a_register_used_after_a_call_is_live_there_a_dead_one_is_not() {
        // r0 = param; r1 = r0 + 1; r2 = r0 + 2 (dead); call f(); r3 = r1 + 5; ret r3
        let b = block(
            vec![],
            vec![
                add(1, reg(0), k(1)),
                add(2, reg(0), k(2)),
                call(None, vec![]),
                add(3, reg(1), k(5)),
                Inst::Ret { val: Some(reg(3)) },
            ],
        );
        let l = Liveness::compute(&[b], 4, |_| false);
        assert_eq!(l.live_at(0, 2), &[1], "only r1 survives the call");
        // The entry of a function (where a new thread is stored) holds the parameter.
        assert_eq!(l.live_at(0, 0), &[0]);
        // Arithmetic is not a stopping point: nothing is recorded there.
        assert!(l.live_at(0, 1).is_empty());
    }

    #[test]
    fn returned_value_and_values_after_a_call_are_recorded() {
        // r1 = call choose(); r2 = r1 + 1; ret r2
        let b = block(
            vec![],
            vec![
                call(Some(1), vec![]),
                add(2, reg(1), k(1)),
                Inst::Ret { val: Some(reg(2)) },
            ],
        );
        let l = Liveness::compute(&[b], 3, |_| false);
        // A transition ends after a call that made a choice: its result is state.
        assert_eq!(l.live_at(0, 1), &[1]);
        // A thread stops before leaving its outermost frame: the value it returns is state.
        assert_eq!(l.live_at(0, 2), &[2]);
    }

    #[test]
    fn call_arguments_and_loads_are_live_at_their_own_instruction() {
        // r1 = load r0; call f(r1, r2); store r1 -> r0
        let b = block(
            vec![],
            vec![
                Inst::Load {
                    dst: 1,
                    ty: 0,
                    ptr: reg(0),
                    order: MemOrder::NotAtomic,
                },
                call(Some(3), vec![reg(1), reg(2)]),
                Inst::Store {
                    ty: 0,
                    val: reg(3),
                    ptr: reg(0),
                    order: MemOrder::NotAtomic,
                },
                Inst::Ret { val: None },
            ],
        );
        let l = Liveness::compute(&[b], 4, |_| false);
        assert_eq!(l.live_at(0, 0), &[0, 2]);
        assert_eq!(l.live_at(0, 1), &[0, 1, 2]);
        assert_eq!(
            l.live_at(0, 2),
            &[0, 3],
            "the call's result is live, its arguments are dead"
        );
    }

    #[test]
    fn loop_carried_values_and_phis() {
        // b0: br b1
        // b1: r1 = phi [b0: 0, b2: r3]; r2 = icmp r1 < r0; condbr r2 b2 b3
        // b2: call f(); r3 = r1 + 1; br b1
        // b3: call g(r1); ret
        let blocks = vec![
            block(vec![], vec![Inst::Br { target: 1 }]),
            block(
                vec![Phi {
                    dst: 1,
                    incoming: Box::new([(0, k(0)), (2, reg(3))]),
                }],
                vec![
                    Inst::ICmp {
                        dst: 2,
                        pred: IntPred::Slt,
                        ty: 0,
                        a: reg(1),
                        b: reg(0),
                    },
                    Inst::CondBr {
                        cond: reg(2),
                        then_bb: 2,
                        else_bb: 3,
                    },
                ],
            ),
            block(
                vec![],
                vec![
                    call(None, vec![]),
                    add(3, reg(1), k(1)),
                    Inst::Br { target: 1 },
                ],
            ),
            block(
                vec![],
                vec![call(None, vec![reg(1)]), Inst::Ret { val: None }],
            ),
        ];
        let l = Liveness::compute(&blocks, 4, |_| false);
        // In the loop body the bound r0 and the counter r1 survive the call; r2 is dead.
        assert_eq!(l.live_at(2, 0), &[0, 1]);
        // After the loop only r1 is needed, the bound is dead.
        assert_eq!(l.live_at(3, 0), &[1]);
        assert_eq!(l.live_at(0, 0), &[0]);
    }

    #[test]
    fn registers_live_after_setjmp_are_live_wherever_longjmp_may_come_from() {
        // r1 = r0 + 1; r2 = setjmp(); r3 = r1 + r2; call g(); ret r3
        // A longjmp out of g() resumes after setjmp, where r1 is needed: r1 must be part
        // of the state at the call to g() although the CFG says it is dead there.
        let setjmp = Inst::Call {
            dst: Some(2),
            callee: Callee::Direct(7),
            args: Box::new([]),
            ret_ty: 0,
            abi: None,
        };
        let b = block(
            vec![],
            vec![
                add(1, reg(0), k(1)),
                setjmp,
                add(3, reg(1), reg(2)),
                call(None, vec![]),
                Inst::Ret { val: Some(reg(3)) },
            ],
        );
        let plain = Liveness::compute(std::slice::from_ref(&b), 4, |_| false);
        assert_eq!(plain.live_at(0, 3), &[3]);
        let twice = Liveness::compute(&[b], 4, |i| {
            matches!(
                i,
                Inst::Call {
                    callee: Callee::Direct(7),
                    ..
                }
            )
        });
        assert_eq!(twice.live_at(0, 3), &[1, 2, 3]);
    }
}
