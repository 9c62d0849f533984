//! Register liveness. A state stores only the registers that are live where a thread
//! stopped; dead values would otherwise split identical states apart.

use super::{Block, Inst, Operand, Reg};

#[derive(Clone, Debug, Default)]
pub struct Liveness {
    /// Index of each block's first instruction in `sets`.
    block_start: Box<[u32]>,
    /// Live-in registers of every instruction where a thread may stop (empty otherwise).
    sets: Box<[Box<[Reg]>]>,
}

impl Liveness {
    #[inline]
    pub fn live_at(&self, block: u32, ip: u32) -> &[Reg] {
        let i = self.block_start[block as usize] + ip;
        &self.sets[i as usize]
    }

    pub fn compute(blocks: &[Block], num_regs: u32) -> Liveness {
        let words = (num_regs as usize).div_ceil(64).max(1);
        let n = blocks.len();
        let succs: Vec<Vec<u32>> = blocks.iter().map(successors).collect();
        // use/def per block (phi uses belong to predecessors, phi defs to the block).
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
        let mut block_start = Vec::with_capacity(n);
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
                // A new thread (or the entry function) is stored before its first step.
                if may_stop_at(inst) || (b == 0 && i == 0) {
                    sets[base + i] = to_list(&live);
                }
            }
        }
        Liveness { block_start: block_start.into(), sets: sets.into() }
    }
}

/// Instructions at which a thread can be suspended in a stored state.
fn may_stop_at(inst: &Inst) -> bool {
    matches!(
        inst,
        Inst::Load { .. } | Inst::Store { .. } | Inst::CmpXchg { .. } | Inst::AtomicRmw { .. } | Inst::Call { .. }
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

pub fn successors(block: &Block) -> Vec<u32> {
    match block.insts.last() {
        Some(Inst::Br { target }) => vec![*target],
        Some(Inst::CondBr { then_bb, else_bb, .. }) => vec![*then_bb, *else_bb],
        Some(Inst::Switch { cases, default, .. }) => {
            let mut v: Vec<u32> = cases.iter().map(|c| c.1).collect();
            v.push(*default);
            v
        }
        _ => vec![],
    }
}

pub fn def_of(inst: &Inst) -> Option<Reg> {
    use Inst::*;
    match inst {
        Bin { dst, .. } | FNeg { dst, .. } | ICmp { dst, .. } | FCmp { dst, .. } | Select { dst, .. }
        | Cast { dst, .. } | Gep { dst, .. } | Alloca { dst, .. } | Load { dst, .. } | CmpXchg { dst, .. }
        | AtomicRmw { dst, .. } | ExtractValue { dst, .. } | InsertValue { dst, .. }
        | ExtractElement { dst, .. } | InsertElement { dst, .. } | ShuffleVector { dst, .. }
        | Freeze { dst, .. } => Some(*dst),
        Call { dst, .. } => *dst,
        _ => None,
    }
}

pub fn for_each_use(inst: &Inst, mut f: impl FnMut(Reg)) {
    use Inst::*;
    let mut op = |o: &Operand| {
        if let Operand::Reg(r) = o {
            f(*r)
        }
    };
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
        CmpXchg { ptr, expected, new, .. } => {
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
        Fence | Br { .. } | Ret { val: None } | Unreachable | Unsupported { .. } => {}
    }
}
