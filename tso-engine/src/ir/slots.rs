//! Which contents of frame-private stack slots can still be read. A slot whose address
//! never leaves its frame's registers (`escape`) is read only by that frame's own loads.
//! Where every path from a stop point overwrites the whole slot before it loads from it
//! (or returns), the slot's bytes, their definedness and their provenance cannot change
//! what the program does: the interpreter resets such a slot to what its `alloca` made
//! (`Machine::forget_dead_slots`), so a stale value or an undefined mask left from an
//! earlier loop iteration (clang's temporaries for atomic builtins at -O0) does not split
//! otherwise equal states.

use super::liveness::{is_stop_point, successors};
use super::types::TyId;
use super::{Block, Inst, Operand, Reg};
use crate::value::Val;

#[derive(Clone, Debug, Default)]
pub(crate) struct DeadSlots {
    /// Index of each block's first instruction in `sets` (empty: no candidate slot).
    block_start: Box<[u32]>,
    /// At each stop point, the registers of the allocas whose slot is dead there.
    sets: Box<[Box<[Reg]>]>,
}

impl DeadSlots {
    /// The dead slots' registers at instruction `ip` of `block`; none at a position
    /// outside the body (a frame parked past its block's end, or in a block the body
    /// does not have). Bounded by this table alone, so the caller (every frame after
    /// every run) need not load the body's blocks to check the position first.
    #[inline]
    pub(crate) fn dead_at(&self, block: u32, ip: u32) -> &[Reg] {
        let b = block as usize;
        let Some(&start) = self.block_start.get(b) else {
            return &[];
        };
        // Each block has one set per instruction, so the next block's start (or the
        // end of the table) bounds this block's instructions.
        let end = self
            .block_start
            .get(b + 1)
            .map_or(self.sets.len(), |&e| e as usize);
        let i = start as usize + ip as usize;
        if i >= end {
            return &[];
        }
        &self.sets[i]
    }

    /// `size_of` gives a stored type's size; a function with a returns-twice call
    /// (setjmp) gets no dead slots: a longjmp resumes at an edge the CFG does not show.
    pub(crate) fn compute(
        blocks: &[Block],
        size_of: impl Fn(TyId) -> u64,
        returns_twice: impl Fn(&Inst) -> bool,
    ) -> DeadSlots {
        // The candidates: frame-private allocas of a constant size.
        let mut slots: Vec<(Reg, u64)> = Vec::new();
        for inst in blocks.iter().flat_map(|b| b.insts.iter()) {
            if returns_twice(inst) {
                return DeadSlots::default();
            }
            if let Inst::Alloca {
                dst,
                elem_size,
                count: Operand::Const(Val::Int(n)),
                escapes: false,
                ..
            } = inst
            {
                slots.push((*dst, elem_size.saturating_mul(*n as u64)));
            }
        }
        if slots.is_empty() {
            return DeadSlots::default();
        }
        let words = slots.len().div_ceil(64);
        let slot_of = |op: &Operand| match op {
            Operand::Reg(r) => slots.iter().position(|(s, _)| s == r),
            _ => None,
        };
        // What an instruction does to the slots: the one it reads, the one it overwrites
        // whole. A partial store neither reads nor kills.
        let effect = |inst: &Inst| -> (Option<usize>, Option<usize>) {
            match inst {
                Inst::Load { ptr, .. } => (slot_of(ptr), None),
                Inst::Store { ptr, ty, .. } => {
                    let whole = slot_of(ptr).filter(|&k| size_of(*ty) >= slots[k].1);
                    (None, whole)
                }
                _ => (None, None),
            }
        };
        // Backward liveness of slot contents, per block then per instruction.
        let n = blocks.len();
        let succs: Vec<Vec<u32>> = blocks.iter().map(successors).collect();
        let transfer = |b: usize, live: &mut [u64], at: &mut dyn FnMut(usize, &[u64])| {
            for (i, inst) in blocks[b].insts.iter().enumerate().rev() {
                let (read, killed) = effect(inst);
                if let Some(k) = killed {
                    live[k / 64] &= !(1 << (k % 64));
                }
                if let Some(k) = read {
                    live[k / 64] |= 1 << (k % 64);
                }
                at(i, live);
            }
        };
        let mut live_in = vec![vec![0u64; words]; n];
        let mut live_out = vec![vec![0u64; words]; n];
        let mut changed = true;
        while changed {
            changed = false;
            for b in (0..n).rev() {
                let mut out = vec![0u64; words];
                for &s in &succs[b] {
                    for (o, i) in out.iter_mut().zip(&live_in[s as usize]) {
                        *o |= i;
                    }
                }
                let mut inn = out.clone();
                transfer(b, &mut inn, &mut |_, _| {});
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
            let mut record = |i: usize, live: &[u64]| {
                if is_stop_point(block, b, i) {
                    sets[base + i] = (0..slots.len())
                        .filter(|&k| live[k / 64] & (1 << (k % 64)) == 0)
                        .map(|k| slots[k].0)
                        .collect();
                }
            };
            transfer(b, &mut live, &mut record);
        }
        DeadSlots {
            block_start: block_start.into(),
            sets: sets.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Callee, MemOrder};

    fn alloca(dst: Reg, escapes: bool) -> Inst {
        Inst::Alloca {
            dst,
            elem_size: 4,
            count: Operand::Const(Val::Int(1)),
            var: None,
            escapes,
        }
    }
    fn load(dst: Reg, ptr: Reg) -> Inst {
        Inst::Load {
            dst,
            ty: 0,
            ptr: Operand::Reg(ptr),
            order: MemOrder::NotAtomic,
        }
    }
    fn store(ptr: Reg, size_ty: TyId) -> Inst {
        Inst::Store {
            ty: size_ty,
            val: Operand::Const(Val::Int(1)),
            ptr: Operand::Reg(ptr),
            order: MemOrder::NotAtomic,
        }
    }
    fn call() -> Inst {
        Inst::Call {
            dst: None,
            callee: Callee::Direct(0),
            args: Box::new([]),
            ret_ty: 0,
            abi: None,
        }
    }
    fn block(insts: Vec<Inst>) -> Block {
        let locs = vec![None; insts.len()];
        Block {
            phis: Box::new([]),
            insts: insts.into(),
            locs: locs.into(),
        }
    }
    /// Type 0 is 4 bytes (the slot's size), type 1 is 1 byte (a partial store).
    fn size_of(ty: TyId) -> u64 {
        if ty == 0 {
            4
        } else {
            1
        }
    }

    #[test]
    fn a_slot_is_dead_from_its_last_load_to_the_next_whole_store() {
        // 0: alloca r0; 1: store r0; 2: call; 3: load r0; 4: call; 5: store r0;
        // 6: load r0; 7: ret
        let b = block(vec![
            alloca(0, false),
            store(0, 0),
            call(),
            load(1, 0),
            call(),
            store(0, 0),
            load(2, 0),
            Inst::Ret { val: None },
        ]);
        let d = DeadSlots::compute(&[b], size_of, |_| false);
        assert_eq!(d.dead_at(0, 1), &[0], "before the whole store");
        assert!(d.dead_at(0, 2).is_empty(), "written, read later");
        assert!(d.dead_at(0, 3).is_empty(), "at its load");
        assert_eq!(d.dead_at(0, 4), &[0], "after its last read before a store");
        assert_eq!(d.dead_at(0, 7), &[0], "at the return");
    }

    #[test]
    fn a_position_outside_the_body_has_no_dead_slots() {
        // Block 0: alloca, store, call, ret; block 1: call, ret. The slot is dead at
        // block 1's call, so a position past block 0's end must not read block 1's sets.
        let first = block(vec![
            alloca(0, false),
            store(0, 0),
            call(),
            Inst::Ret { val: None },
        ]);
        let second = block(vec![call(), Inst::Ret { val: None }]);
        let d = DeadSlots::compute(&[first, second], size_of, |_| false);
        assert_eq!(d.dead_at(1, 0), &[0], "the slot is dead at block 1's call");
        assert!(d.dead_at(0, 4).is_empty(), "past block 0's end");
        assert!(d.dead_at(0, 5).is_empty(), "further past block 0's end");
        assert!(d.dead_at(1, 2).is_empty(), "past the last block's end");
        assert!(d.dead_at(2, 0).is_empty(), "a block the body does not have");
        assert!(d.dead_at(u32::MAX, u32::MAX).is_empty());
    }

    #[test]
    fn partial_stores_escaping_slots_and_loops_keep_contents() {
        // A partial store does not kill: the rest of the slot is read after it.
        let partial = block(vec![
            alloca(0, false),
            store(0, 0),
            call(),
            store(0, 1),
            load(1, 0),
            Inst::Ret { val: None },
        ]);
        let d = DeadSlots::compute(&[partial], size_of, |_| false);
        assert!(d.dead_at(0, 2).is_empty());
        assert!(d.dead_at(0, 3).is_empty());
        // An escaping slot is never a candidate.
        let escaping = block(vec![
            alloca(0, true),
            call(),
            store(0, 0),
            Inst::Ret { val: None },
        ]);
        let d = DeadSlots::compute(&[escaping], size_of, |_| false);
        assert!(d.dead_at(0, 1).is_empty());
        // A loop that reads the slot at its head keeps it live around the back edge.
        let entry = block(vec![alloca(0, false), store(0, 0), Inst::Br { target: 1 }]);
        let head = block(vec![
            call(),
            load(1, 0),
            Inst::CondBr {
                cond: Operand::Reg(1),
                then_bb: 1,
                else_bb: 2,
            },
        ]);
        let exit = block(vec![call(), Inst::Ret { val: None }]);
        let d = DeadSlots::compute(&[entry, head, exit], size_of, |_| false);
        assert!(d.dead_at(1, 0).is_empty(), "read at the loop head");
        assert_eq!(d.dead_at(2, 0), &[0], "after the loop");
        // A function with a returns-twice call: nothing is dead.
        let b = block(vec![alloca(0, false), call(), Inst::Ret { val: None }]);
        let d = DeadSlots::compute(&[b], size_of, |i| matches!(i, Inst::Call { .. }));
        assert!(d.dead_at(0, 1).is_empty());
    }
}
