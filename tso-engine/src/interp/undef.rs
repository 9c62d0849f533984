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
        let ops = Operands {
            m: self,
            st,
            tid,
            fr: st.thread(tid).top(),
        };
        let types = &self.program.types;
        let u = |op: &Operand| ops.undef(op);
        Ok(match inst {
            Inst::Bin { op, ty, a, b, .. } => ops.bin(*op, *ty, a, b)?,
            Inst::FNeg { a, .. } => u(a),
            Inst::ICmp { pred, ty, a, b, .. } => ops.icmp(*pred, *ty, a, b),
            Inst::FCmp { a, b, .. } => ops.fcmp(a, b),
            Inst::Select { cond, a, b, .. } => ops.select(cond, a, b)?,
            Inst::Cast {
                op, from, to, a, ..
            } => ops.cast(*op, *from, *to, a)?,
            Inst::Gep { base, indices, .. } => ops.gep(base, indices),
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
            Inst::ExtractValue { agg, indices, .. } => ops.extract_value(agg, indices),
            Inst::InsertValue {
                agg, val, indices, ..
            } => ops.insert_value(agg, val, indices),
            Inst::ExtractElement { vec, idx, .. } => ops.extract_element(vec, idx),
            Inst::InsertElement { vec, val, idx, .. } => ops.insert_element(vec, val, idx),
            Inst::ShuffleVector { a, b, mask: m, .. } => ops.shuffle(a, b, m),
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
            origin: Origin::of_range(o, off, size as u32),
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

/// The bits of an address (a pointer's undefined bits above these do not matter).
const ADDRESS: u128 = u64::MAX as u128;

/// The operands of the instruction a thread is at, with their undefined bits: what
/// `Machine::undef_before` computes a result's shadow from, one method per kind of
/// instruction.
struct Operands<'a, 'p> {
    m: &'a Machine<'p>,
    st: &'a State,
    tid: ThreadId,
    fr: &'a Frame,
}

impl Operands<'_, '_> {
    fn undef(&self, op: &Operand) -> Option<Undef> {
        self.m.undef_of(self.st, self.tid, self.fr, op)
    }

    fn val(&self, op: &Operand) -> Val {
        self.m.eval(self.fr, op)
    }

    fn bin(&self, op: BinOp, ty: TyId, a: &Operand, b: &Operand) -> Result<Option<Undef>, Failure> {
        let types = &self.m.program.types;
        let (ua, ub) = (self.undef(a), self.undef(b));
        if matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem) {
            self.m.require(
                ub.clone(),
                mask(types.int_bits(types.scalar(ty))),
                "a divisor",
            )?;
        }
        if ua.is_none() && ub.is_none() {
            return Ok(None);
        }
        let (x, y) = (self.val(a), self.val(b));
        let (sa, sb) = (shape_or_zero(&ua, &x), shape_or_zero(&ub, &y));
        Ok(with_origin(
            def::binop(types, op, ty, &x, &y, &sa, &sb),
            &[&ua, &ub],
        ))
    }

    fn icmp(&self, pred: crate::ir::IntPred, ty: TyId, a: &Operand, b: &Operand) -> Option<Undef> {
        let (ua, ub) = (self.undef(a), self.undef(b));
        if ua.is_none() && ub.is_none() {
            return None;
        }
        let (x, y) = (self.val(a), self.val(b));
        let (sa, sb) = (shape_or_zero(&ua, &x), shape_or_zero(&ub, &y));
        let types = &self.m.program.types;
        with_origin(def::icmp(types, pred, ty, &x, &y, &sa, &sb), &[&ua, &ub])
    }

    fn fcmp(&self, a: &Operand, b: &Operand) -> Option<Undef> {
        let (ua, ub) = (self.undef(a), self.undef(b));
        if ua.is_none() && ub.is_none() {
            return None;
        }
        with_origin(def::all_undefined(&self.val(a)), &[&ua, &ub])
    }

    /// The chosen operand's shadow, lane by lane for a vector condition; an undefined
    /// condition is refused.
    fn select(&self, cond: &Operand, a: &Operand, b: &Operand) -> Result<Option<Undef>, Failure> {
        self.m
            .require(self.undef(cond), u128::MAX, "a select condition")?;
        let (ua, ub) = (self.undef(a), self.undef(b));
        if ua.is_none() && ub.is_none() {
            return Ok(None);
        }
        let c = self.val(cond);
        let (x, y) = (self.val(a), self.val(b));
        let (sa, sb) = (shape_or_zero(&ua, &x), shape_or_zero(&ub, &y));
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
        Ok(with_origin(shadow, &[&ua, &ub]))
    }

    fn cast(
        &self,
        op: crate::ir::CastOp,
        from: TyId,
        to: TyId,
        a: &Operand,
    ) -> Result<Option<Undef>, Failure> {
        let Some(ua) = self.undef(a) else {
            return Ok(None);
        };
        let types = &self.m.program.types;
        let v = self.val(a);
        let out = super::arith::cast(types, op, from, to, &v)?;
        let sh = full_shape(&ua.shadow, &v);
        Ok(Some(Undef {
            shadow: def::cast(types, op, from, to, &v, &sh, &out),
            origin: ua.origin,
        }))
    }

    /// An undefined index makes the whole address undefined; a defined offset added to
    /// a partly undefined base leaves its bits below the lowest undefined one defined.
    fn gep(&self, base: &Operand, indices: &[(Operand, i64, TyId)]) -> Option<Undef> {
        let ub = self.undef(base);
        let ui = indices.iter().find_map(|(idx, _, _)| self.undef(idx));
        match (ub, ui) {
            (None, None) => None,
            (_, Some(ui)) => Some(Undef {
                shadow: Val::Int(ADDRESS),
                origin: ui.origin,
            }),
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

    fn extract_value(&self, agg: &Operand, indices: &[u32]) -> Option<Undef> {
        let ua = self.undef(agg)?;
        let v = self.val(agg);
        Some(Undef {
            shadow: def::extract(&ua.shadow, &v, indices),
            origin: ua.origin,
        })
    }

    fn insert_value(&self, agg: &Operand, val: &Operand, indices: &[u32]) -> Option<Undef> {
        let (ua, uv) = (self.undef(agg), self.undef(val));
        if ua.is_none() && uv.is_none() {
            return None;
        }
        let (a, v) = (self.val(agg), self.val(val));
        let (sa, sv) = (shape_or_defined(&ua, &a), shape_or_defined(&uv, &v));
        with_origin(def::insert(&sa, &a, indices, sv), &[&uv, &ua])
    }

    /// An undefined index makes the lane read wholly undefined.
    fn extract_element(&self, vec: &Operand, idx: &Operand) -> Option<Undef> {
        let (uv, ui) = (self.undef(vec), self.undef(idx));
        if let Some(ui) = ui {
            let lane = self.val(vec).lanes().first().cloned().unwrap_or_default();
            return Some(Undef {
                shadow: def::all_undefined(&lane),
                origin: ui.origin,
            });
        }
        let uv = uv?;
        let i = self.val(idx).as_u64() as u32;
        let v = self.val(vec);
        Some(Undef {
            shadow: def::extract(&full_shape(&uv.shadow, &v), &v, &[i]),
            origin: uv.origin,
        })
    }

    /// An undefined index makes the whole vector undefined.
    fn insert_element(&self, vec: &Operand, val: &Operand, idx: &Operand) -> Option<Undef> {
        let (uv, ux, ui) = (self.undef(vec), self.undef(val), self.undef(idx));
        let v = self.val(vec);
        if let Some(ui) = ui {
            return Some(Undef {
                shadow: def::all_undefined(&v),
                origin: ui.origin,
            });
        }
        if uv.is_none() && ux.is_none() {
            return None;
        }
        let x = self.val(val);
        let (sv, sx) = (shape_or_defined(&uv, &v), shape_or_defined(&ux, &x));
        let i = self.val(idx).as_u64() as u32;
        with_origin(def::insert(&sv, &v, &[i], sx), &[&ux, &uv])
    }

    /// Each lane's shadow from the lane it picks; a poison lane (mask -1) is undefined
    /// and comes from this instruction.
    fn shuffle(&self, a: &Operand, b: &Operand, m: &[i32]) -> Option<Undef> {
        let (ua, ub) = (self.undef(a), self.undef(b));
        let poison_lane = m.iter().any(|&k| k < 0);
        if ua.is_none() && ub.is_none() && !poison_lane {
            return None;
        }
        let (x, y) = (self.val(a), self.val(b));
        let la = def::lanes_like(&shape_or_defined(&ua, &x), &x);
        let lb = def::lanes_like(&shape_or_defined(&ub, &y), &y);
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
            .unwrap_or_else(|| self.m.location(self.st, self.tid).map(Origin::Site));
        Some(Undef {
            shadow: Val::Agg(lanes.into()),
            origin,
        })
    }
}

/// A result's shadow with the origin of the first operand in `us` that has undefined
/// bits.
fn with_origin(shadow: Val, us: &[&Option<Undef>]) -> Option<Undef> {
    let origin = us
        .iter()
        .find_map(|x| x.as_ref().map(|x| x.origin))
        .flatten();
    Some(Undef { shadow, origin })
}

/// Operand `v`'s shadow in its lane structure (`u` None: the scalar 0, all defined).
fn shape_or_zero(u: &Option<Undef>, v: &Val) -> Val {
    full_shape(u.as_ref().map_or(&Val::Int(0), |u| &u.shadow), v)
}

/// Operand `v`'s shadow in its lane structure (`u` None: all defined, shaped like `v`).
fn shape_or_defined(u: &Option<Undef>, v: &Val) -> Val {
    u.as_ref()
        .map_or_else(|| def::all_defined(v), |u| full_shape(&u.shadow, v))
}

/// Whether an operand of `inst` is an `undef` or `poison` constant.
fn has_undef_operand(inst: &Inst) -> bool {
    let mut any = false;
    crate::ir::liveness::for_each_operand(inst, |op| any |= matches!(op, Operand::Undef(_)));
    any
}
