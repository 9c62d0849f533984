//! Which stack slots can only ever be reached through their frame's registers: an
//! `alloca` whose address is used only as the address of loads and stores (not
//! stored, passed, returned, cast, offset or merged by a φ). No other thread can ever
//! reach such a slot, so race detection keeps no history for it (`Object::frame_private`).

use super::liveness::for_each_use;
use super::{Block, Inst, Operand, Reg};
use std::collections::HashSet;

/// Set `Inst::Alloca::escapes` of every alloca in `blocks`.
pub(crate) fn mark_allocas(blocks: &mut [Block]) {
    let mut escaping: HashSet<Reg> = HashSet::new();
    for b in blocks.iter() {
        for phi in b.phis.iter() {
            for (_, v) in phi.incoming.iter() {
                if let Operand::Reg(r) = v {
                    escaping.insert(*r);
                }
            }
        }
        for inst in b.insts.iter() {
            match inst {
                Inst::Load { .. } => {}
                Inst::Store { val, .. } => {
                    if let Operand::Reg(r) = val {
                        escaping.insert(*r);
                    }
                }
                other => for_each_use(other, |r| {
                    escaping.insert(r);
                }),
            }
        }
    }
    for b in blocks.iter_mut() {
        for inst in b.insts.iter_mut() {
            if let Inst::Alloca { dst, escapes, .. } = inst {
                *escapes = escaping.contains(dst);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Callee, MemOrder};
    use crate::value::Val;

    fn alloca(dst: Reg) -> Inst {
        Inst::Alloca {
            dst,
            elem_size: 4,
            count: Operand::Const(Val::Int(1)),
            var: None,
            escapes: true,
        }
    }

    #[test]
    fn only_a_slot_used_as_a_load_or_store_address_stays_private() {
        let insts = vec![
            alloca(0),
            alloca(1),
            Inst::Store {
                ty: 0,
                val: Operand::Const(Val::Int(5)),
                ptr: Operand::Reg(0),
                order: MemOrder::NotAtomic,
            },
            Inst::Load {
                dst: 2,
                ty: 0,
                ptr: Operand::Reg(0),
                order: MemOrder::NotAtomic,
            },
            // Slot 1's address is stored (into slot 0): it escapes.
            Inst::Store {
                ty: 0,
                val: Operand::Reg(1),
                ptr: Operand::Reg(0),
                order: MemOrder::NotAtomic,
            },
            alloca(3),
            // Slot 3's address is passed to a call: it escapes.
            Inst::Call {
                dst: None,
                callee: Callee::Direct(0),
                args: vec![Operand::Reg(3)].into(),
                ret_ty: 0,
                abi: None,
            },
        ];
        let mut blocks = vec![Block {
            phis: Box::new([]),
            locs: vec![None; insts.len()].into(),
            insts: insts.into(),
        }];
        mark_allocas(&mut blocks);
        let escapes: Vec<bool> = blocks[0]
            .insts
            .iter()
            .filter_map(|i| match i {
                Inst::Alloca { escapes, .. } => Some(*escapes),
                _ => None,
            })
            .collect();
        assert_eq!(escapes, vec![false, true, true]);
    }
}
