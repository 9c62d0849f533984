//! Globals the program names only as the address of atomic operations (a lock word,
//! a counter updated with `__sync_add_and_fetch`, the top of a lock-free stack).
//!
//! Two atomic accesses never race, so an access to such a global can race only with a
//! non-atomic access to it, and the program has none: its address appears in no other
//! place (not in a plain load or store, not as a stored value, call argument, pointer
//! arithmetic, cast, φ or another global's initial value), so no register or memory
//! can ever hold a pointer derived from it. Its accesses' histories can never be part
//! of a race and are not recorded (they would split states by who has seen which
//! atomic update: `RaceState` keeps an access while another thread does not know it).
//! Their synchronisation (release sequences, acquires) is kept as for any atomic.
//!
//! The one way around the analysis is a pointer made up from an integer or by
//! arithmetic past another object's end (undefined behaviour): a non-atomic access that
//! still reaches such a global is reported as unsupported (`interp/races.rs`), never
//! let pass.

use crate::ir::liveness::for_each_operand;
use crate::ir::{Inst, Operand, Program};
use crate::memory::ObjId;
use crate::value::{ptr_parts, Val};

/// Per object id (globals are objects `1..=globals.len()`, in order): whether it is a
/// global that only atomic operations name. Other ids are `false`.
pub(crate) fn atomic_only_globals(program: &Program) -> Vec<bool> {
    let globals = program.globals.len();
    let mut only = vec![true; globals + 1];
    only[0] = false;
    // A pointer into global `o` in a constant: `o` is named here.
    fn named(v: &Val, globals: usize, f: &mut impl FnMut(usize)) {
        match v {
            Val::Ptr(p) => {
                let o = ptr_parts(*p).0 as usize;
                if (1..=globals).contains(&o) {
                    f(o)
                }
            }
            Val::PtrLanes(..) => v.for_each_pointer(&mut |p| named(&Val::Ptr(p), globals, f)),
            Val::Agg(lanes) => lanes.iter().for_each(|l| named(l, globals, f)),
            Val::Int(_) | Val::Wide(_) | Val::F32(_) | Val::F64(_) => {}
        }
    }
    let mut escapes = |o: &Operand| {
        if let Operand::Const(v) | Operand::Undef(v) = o {
            named(v, globals, &mut |g| only[g] = false);
        }
    };
    for body in program.functions.iter().filter_map(|f| f.body.as_ref()) {
        for b in body.blocks.iter() {
            for phi in b.phis.iter() {
                phi.incoming.iter().for_each(|(_, v)| escapes(v));
            }
            for inst in b.insts.iter() {
                // The address operand of an atomic access is the one allowed use.
                let atomic_ptr = match inst {
                    Inst::Load { ptr, order, .. } | Inst::Store { ptr, order, .. }
                        if order.is_atomic() =>
                    {
                        Some(ptr)
                    }
                    Inst::CmpXchg { ptr, .. } | Inst::AtomicRmw { ptr, .. } => Some(ptr),
                    _ => None,
                };
                for_each_operand(inst, |o| {
                    if !atomic_ptr.is_some_and(|p| std::ptr::eq(p, o)) {
                        escapes(o)
                    }
                });
            }
        }
    }
    // A global whose address is another global's initial value can be loaded from it.
    for g in &program.globals {
        for &at in g.init_ptrs.iter() {
            let at = at as usize;
            if let Some(bytes) = g.init.get(at..at + 8) {
                let p = u64::from_le_bytes(bytes.try_into().unwrap_or_default());
                named(&Val::Ptr(p), globals, &mut |o| only[o] = false);
            }
        }
    }
    only
}

/// Whether `obj` is in `atomic_only` (see `atomic_only_globals`).
pub(crate) fn is_atomic_only(atomic_only: &[bool], obj: ObjId) -> bool {
    atomic_only.get(obj as usize).copied().unwrap_or(false)
}
