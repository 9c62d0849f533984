//! Definedness in the interpreter: the shadow of each instruction's result and the
//! uses that must not depend on undefined bits (rules in `crate::definedness`).

use super::Machine;
use crate::definedness::{self as def, Origin, Undef};
use crate::error::Failure;
use crate::ir::{BinOp, Callee, Inst, Intrinsic, Operand, TyId};
use crate::state::{Frame, State, ThreadId};
use crate::value::{mask, Val};

impl<'p> Machine<'p> {
    /// The undefined bits of operand `op` in frame `fr` (None: fully defined). An
    /// `undef` operand comes from the instruction `tid` is at.
    #[inline]
    pub(super) fn undef_of(
        &self,
        st: &State,
        tid: ThreadId,
        fr: &Frame,
        op: &Operand,
    ) -> Option<Undef> {
        match op {
            Operand::Reg(r) => fr.undef_of(*r).cloned(),
            Operand::Const(_) => None,
            Operand::Undef(v) => Some(Undef {
                shadow: def::all_undefined(v),
                origin: self.location(st, tid).map(Origin::Site),
            }),
        }
    }

    /// Can an operand of `inst`, the instruction `tid` is at, have undefined bits? Not
    /// while no register of its frame does and it has no `undef` operand (the usual
    /// case, kept cheap: its function's flag first, then its own operands). When this
    /// is false, `undef_of` is None for every operand, and then `undef_before` gives
    /// None for every instruction but the `builds_aggregate` ones, which are always
    /// looked at.
    #[inline]
    pub(super) fn may_be_undefined(&self, st: &State, tid: ThreadId, inst: &Inst) -> bool {
        let fr = st.thread(tid).top();
        !fr.undef.is_empty()
            || (self.program.functions[fr.func as usize]
                .body
                .as_ref()
                .is_some_and(|b| b.has_undef_operands)
                && has_undef_operand(inst))
    }

    /// A location id as `file.c:12`, to say where undefined bits came from.
    pub(super) fn origin_text(&self, origin: Option<Origin>) -> Option<String> {
        origin.and_then(|o| o.describe(self.program))
    }

    /// Fail if `u` has an undefined bit among `relevant` (bits of the value `what` is).
    fn require(&self, u: Option<Undef>, relevant: u128, what: &str) -> Result<(), Failure> {
        match u {
            Some(u) if def::smear(&u.shadow) & relevant != 0 => {
                Err(def::error(what, self.origin_text(u.origin).as_deref()))
            }
            _ => Ok(()),
        }
    }

    /// Before `inst` runs: refuse the uses that must be defined, and compute the
    /// shadow of a result that depends only on registers (None: defined, or an
    /// instruction whose result shadow is computed where it runs).
    pub(super) fn undef_before(
        &self,
        st: &State,
        tid: ThreadId,
        inst: &Inst,
    ) -> Result<Option<Undef>, Failure> {
        let fr = st.thread(tid).top();
        let types = &self.program.types;
        let u = |op: &Operand| self.undef_of(st, tid, fr, op);
        let ev = |op: &Operand| self.eval(fr, op);
        // The origin of a result: the first operand that has undefined bits.
        let with = |shadow: Val, us: &[&Option<Undef>]| {
            let origin = us
                .iter()
                .find_map(|x| x.as_ref().map(|x| x.origin))
                .flatten();
            Some(Undef { shadow, origin })
        };
        const ADDRESS: u128 = u64::MAX as u128;
        Ok(match inst {
            Inst::Bin { op, ty, a, b, .. } => {
                let (ua, ub) = (u(a), u(b));
                if matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem) {
                    self.require(
                        ub.clone(),
                        mask(types.int_bits(types.scalar(*ty))),
                        "a divisor",
                    )?;
                }
                if ua.is_none() && ub.is_none() {
                    return Ok(None);
                }
                let (x, y) = (ev(a), ev(b));
                let zero = Val::Int(0);
                let sa = ua.as_ref().map_or(&zero, |u| &u.shadow);
                let sb = ub.as_ref().map_or(&zero, |u| &u.shadow);
                let (sa, sb) = (full_shape(sa, &x), full_shape(sb, &y));
                with(def::binop(types, *op, *ty, &x, &y, &sa, &sb), &[&ua, &ub])
            }
            Inst::FNeg { a, .. } => u(a),
            Inst::ICmp { pred, ty, a, b, .. } => {
                let (ua, ub) = (u(a), u(b));
                if ua.is_none() && ub.is_none() {
                    return Ok(None);
                }
                let (x, y) = (ev(a), ev(b));
                let zero = Val::Int(0);
                let sa = full_shape(ua.as_ref().map_or(&zero, |u| &u.shadow), &x);
                let sb = full_shape(ub.as_ref().map_or(&zero, |u| &u.shadow), &y);
                with(def::icmp(types, *pred, *ty, &x, &y, &sa, &sb), &[&ua, &ub])
            }
            Inst::FCmp { a, b, .. } => {
                let (ua, ub) = (u(a), u(b));
                if ua.is_none() && ub.is_none() {
                    return Ok(None);
                }
                with(def::all_undefined(&ev(a)), &[&ua, &ub])
            }
            Inst::Select { cond, a, b, .. } => {
                let uc = u(cond);
                self.require(uc, u128::MAX, "a select condition")?;
                let (ua, ub) = (u(a), u(b));
                if ua.is_none() && ub.is_none() {
                    return Ok(None);
                }
                let c = ev(cond);
                let (x, y) = (ev(a), ev(b));
                let zero = Val::Int(0);
                let sa = full_shape(ua.as_ref().map_or(&zero, |u| &u.shadow), &x);
                let sb = full_shape(ub.as_ref().map_or(&zero, |u| &u.shadow), &y);
                let shadow = match &c {
                    Val::Agg(lanes) => {
                        let (la, lb) = (def::lanes_like(&sa, &x), def::lanes_like(&sb, &y));
                        Val::Agg(
                            lanes
                                .iter()
                                .enumerate()
                                .map(|(i, l)| {
                                    let pick = if l.is_true() { &la } else { &lb };
                                    pick.get(i).cloned().unwrap_or(Val::Int(0))
                                })
                                .collect::<Vec<_>>()
                                .into(),
                        )
                    }
                    _ if c.is_true() => sa,
                    _ => sb,
                };
                with(shadow, &[&ua, &ub])
            }
            Inst::Cast {
                op, from, to, a, ..
            } => {
                let Some(ua) = u(a) else { return Ok(None) };
                let v = ev(a);
                let out = super::arith::cast(types, *op, *from, *to, &v)?;
                let sh = full_shape(&ua.shadow, &v);
                Some(Undef {
                    shadow: def::cast(types, *op, *from, *to, &v, &sh, &out),
                    origin: ua.origin,
                })
            }
            Inst::Gep { base, indices, .. } => {
                let ub = u(base);
                let ui = indices.iter().find_map(|(idx, _, _)| u(idx));
                match (ub, ui) {
                    (None, None) => None,
                    (_, Some(ui)) => Some(Undef {
                        shadow: Val::Int(ADDRESS),
                        origin: ui.origin,
                    }),
                    // A defined offset added to a partly undefined address.
                    (Some(ub), None) => {
                        let s = def::smear(&ub.shadow) & ADDRESS;
                        Some(Undef {
                            shadow: Val::Int(if s == 0 {
                                0
                            } else {
                                (u128::MAX << s.trailing_zeros()) & ADDRESS
                            }),
                            origin: ub.origin,
                        })
                    }
                }
            }
            Inst::Alloca { count, .. } => {
                self.require(u(count), u128::MAX, "the size of a stack allocation")?;
                None
            }
            Inst::Load { ptr, .. } => {
                self.require(u(ptr), ADDRESS, "an address loaded from")?;
                None
            }
            Inst::Store { ptr, .. } => {
                self.require(u(ptr), ADDRESS, "an address stored to")?;
                None
            }
            Inst::CmpXchg {
                ptr, ty, expected, ..
            } => {
                self.require(u(ptr), ADDRESS, "an address of a compare-and-swap")?;
                self.require(
                    u(expected),
                    mask(types.int_bits(*ty)),
                    "the expected value of a compare-and-swap",
                )?;
                None
            }
            Inst::AtomicRmw { ptr, .. } => {
                self.require(u(ptr), ADDRESS, "an address of an atomic read-modify-write")?;
                None
            }
            Inst::ExtractValue { agg, indices, .. } => {
                let Some(ua) = u(agg) else { return Ok(None) };
                let v = ev(agg);
                Some(Undef {
                    shadow: def::extract(&ua.shadow, &v, indices),
                    origin: ua.origin,
                })
            }
            Inst::InsertValue {
                agg, val, indices, ..
            } => {
                let (ua, uv) = (u(agg), u(val));
                if ua.is_none() && uv.is_none() {
                    return Ok(None);
                }
                let (a, v) = (ev(agg), ev(val));
                let sa = ua
                    .as_ref()
                    .map_or_else(|| def::all_defined(&a), |u| full_shape(&u.shadow, &a));
                let sv = uv
                    .as_ref()
                    .map_or_else(|| def::all_defined(&v), |u| full_shape(&u.shadow, &v));
                with(def::insert(&sa, &a, indices, sv), &[&uv, &ua])
            }
            Inst::ExtractElement { vec, idx, .. } => {
                let (uv, ui) = (u(vec), u(idx));
                if let Some(ui) = ui {
                    let lane = ev(vec).lanes().first().cloned().unwrap_or_default();
                    return Ok(Some(Undef {
                        shadow: def::all_undefined(&lane),
                        origin: ui.origin,
                    }));
                }
                let Some(uv) = uv else { return Ok(None) };
                let i = ev(idx).as_u64() as u32;
                let v = ev(vec);
                Some(Undef {
                    shadow: def::extract(&full_shape(&uv.shadow, &v), &v, &[i]),
                    origin: uv.origin,
                })
            }
            Inst::InsertElement { vec, val, idx, .. } => {
                let (uv, ux, ui) = (u(vec), u(val), u(idx));
                let v = ev(vec);
                if let Some(ui) = ui {
                    return Ok(Some(Undef {
                        shadow: def::all_undefined(&v),
                        origin: ui.origin,
                    }));
                }
                if uv.is_none() && ux.is_none() {
                    return Ok(None);
                }
                let x = ev(val);
                let sv = uv
                    .as_ref()
                    .map_or_else(|| def::all_defined(&v), |u| full_shape(&u.shadow, &v));
                let sx = ux
                    .as_ref()
                    .map_or_else(|| def::all_defined(&x), |u| full_shape(&u.shadow, &x));
                let i = ev(idx).as_u64() as u32;
                with(def::insert(&sv, &v, &[i], sx), &[&ux, &uv])
            }
            Inst::ShuffleVector { a, b, mask: m, .. } => {
                let (ua, ub) = (u(a), u(b));
                let poison_lane = m.iter().any(|&k| k < 0);
                if ua.is_none() && ub.is_none() && !poison_lane {
                    return Ok(None);
                }
                let (x, y) = (ev(a), ev(b));
                let la = def::lanes_like(
                    &ua.as_ref()
                        .map_or_else(|| def::all_defined(&x), |u| full_shape(&u.shadow, &x)),
                    &x,
                );
                let lb = def::lanes_like(
                    &ub.as_ref()
                        .map_or_else(|| def::all_defined(&y), |u| full_shape(&u.shadow, &y)),
                    &y,
                );
                let n = x.lanes().len() as i32;
                let lanes: Vec<Val> = m
                    .iter()
                    .map(|&k| {
                        if k < 0 {
                            Val::Int(u128::MAX)
                        } else if k < n {
                            la.get(k as usize).cloned().unwrap_or(Val::Int(0))
                        } else {
                            lb.get((k - n) as usize).cloned().unwrap_or(Val::Int(0))
                        }
                    })
                    .collect();
                let origin = ua
                    .as_ref()
                    .or(ub.as_ref())
                    .map(|u| u.origin)
                    .unwrap_or_else(|| self.location(st, tid).map(Origin::Site));
                Some(Undef {
                    shadow: Val::Agg(lanes.into()),
                    origin,
                })
            }
            Inst::Call {
                callee: Callee::Indirect(op),
                ..
            } => {
                self.require(u(op), ADDRESS, "a call target")?;
                None
            }
            Inst::CondBr { cond, .. } => {
                self.require(u(cond), 1, "a branch condition")?;
                None
            }
            Inst::Switch { val, ty, .. } => {
                self.require(u(val), mask(types.int_bits(*ty)), "a switch value")?;
                None
            }
            _ => None,
        })
    }

    /// The shadow of an intrinsic's result from its arguments' (`undef[i]`, None when
    /// all are defined), after refusing undefined lengths and addresses of memory
    /// intrinsics. Returns whether a `memset` value was undefined.
    pub(super) fn intrinsic_undef(
        &self,
        i: &Intrinsic,
        args: &[Val],
        undef: &[Option<Undef>],
        result: &Val,
    ) -> Result<Option<Undef>, Failure> {
        if undef.is_empty() {
            return Ok(None);
        }
        let arg = |k: usize| undef.get(k).cloned().flatten();
        let origin = undef
            .iter()
            .find_map(|u| u.as_ref().map(|u| u.origin))
            .flatten();
        Ok(match i {
            Intrinsic::Memcpy | Intrinsic::Memmove => {
                self.require(arg(0), u64::MAX as u128, "the destination of a memory copy")?;
                self.require(arg(1), u64::MAX as u128, "the source of a memory copy")?;
                self.require(arg(2), u128::MAX, "the length of a memory copy")?;
                None
            }
            Intrinsic::Memset => {
                self.require(arg(0), u64::MAX as u128, "the destination of a memset")?;
                self.require(arg(2), u128::MAX, "the length of a memset")?;
                None
            }
            // Bookkeeping (lifetime, assume, va_*): no result that matters.
            Intrinsic::NoOp | Intrinsic::VaStart | Intrinsic::VaEnd | Intrinsic::VaCopy => None,
            Intrinsic::Expect => arg(0),
            _ => {
                // Lane by lane where the operation is, else wholly undefined.
                let Val::Agg(lanes) = result else {
                    return Ok(Some(Undef {
                        shadow: def::all_undefined(result),
                        origin,
                    }));
                };
                let lane_undef = |l: usize| {
                    undef.iter().zip(args).any(|(u, a)| {
                        u.as_ref().is_some_and(|u| {
                            let lanes = def::lanes_like(&full_shape(&u.shadow, a), a);
                            match a {
                                Val::Agg(_) => lanes.get(l).is_some_and(|s| !def::is_defined(s)),
                                _ => !def::is_defined(&u.shadow),
                            }
                        })
                    })
                };
                let per_lane =
                    lanes.len() == args.iter().map(|a| a.lanes().len()).max().unwrap_or(0);
                if !per_lane {
                    return Ok(Some(Undef {
                        shadow: def::all_undefined(result),
                        origin,
                    }));
                }
                Some(Undef {
                    shadow: Val::Agg(
                        lanes
                            .iter()
                            .enumerate()
                            .map(|(l, v)| {
                                if lane_undef(l) {
                                    def::all_undefined(v)
                                } else {
                                    def::all_defined(v)
                                }
                            })
                            .collect::<Vec<_>>()
                            .into(),
                    ),
                    origin,
                })
            }
        })
    }

    /// The shadow of a load of `ty` at the checked location `(obj, off)`.
    #[inline]
    pub(super) fn memory_undef(&self, st: &State, obj: u32, off: u32, ty: TyId) -> Option<Undef> {
        let o = st.memory.get(obj)?;
        let size = self.program.types.size(ty);
        let m = o.undef_in(off, size as u32)?;
        Some(Undef {
            shadow: def::decode_mask(&self.program.types, ty, m),
            origin: Origin::of(o),
        })
    }
}

/// A shadow with the value's lane structure (an `undef` operand's or a scalar shadow
/// standing for a whole aggregate is spread over its lanes).
fn full_shape(sh: &Val, v: &Val) -> Val {
    match (sh, v) {
        (Val::Agg(_), _)
        | (
            _,
            Val::Int(_)
            | Val::Wide(_)
            | Val::Ptr(_)
            | Val::PtrLanes(..)
            | Val::F32(_)
            | Val::F64(_),
        ) => sh.clone(),
        (s, Val::Agg(l)) => Val::Agg(
            l.iter()
                .map(|x| full_shape(s, x))
                .collect::<Vec<_>>()
                .into(),
        ),
    }
}

/// Whether an operand of `inst` is an `undef` or `poison` constant.
fn has_undef_operand(inst: &Inst) -> bool {
    let mut any = false;
    crate::ir::liveness::for_each_operand(inst, |op| any |= matches!(op, Operand::Undef(_)));
    any
}
