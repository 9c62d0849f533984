//! Executing single instructions.

use super::{arith, intrinsics, Exec, Machine};
use crate::definedness::Undef;
use crate::error::{ErrorKind, Failure};
use crate::ir::{CallAbi, Callee, FuncId, Inst, MemOrder, Operand, RmwOp, Ty, TyId};
use crate::memory::{decode, encode, Fragment, ObjId, ObjKind, Object};
use crate::natives::{Chooser, Native, NativeCx, NativeResult};
use crate::state::{ExitValue, Frame, ReturnTo, State, Thread, ThreadId, ThreadStatus};
use crate::value::{make_ptr, mask, ptr_parts, sext, Val};
use std::sync::Arc;

impl<'p> Machine<'p> {
    pub(super) fn exec(
        &self,
        st: &mut State,
        tid: ThreadId,
        inst: &'p Inst,
        chooser: &mut dyn Chooser,
        notes: Option<&mut Vec<String>>,
    ) -> Result<Exec, Failure> {
        let types = &self.program.types;
        // The result's undefined bits (see `crate::definedness`), after refusing uses
        // that depend on undefined bits.
        let mut result_undef = if self.opts.definedness
            && (inst.builds_aggregate() || self.may_be_undefined(st, tid, inst))
        {
            self.undef_before(st, tid, inst)?
        } else {
            None
        };
        let th = st.thread(tid);
        let fr = th.top();
        macro_rules! ev {
            ($op:expr) => {
                self.eval(fr, $op)
            };
        }
        let (dst, val) = match inst {
            Inst::Bin { dst, op, ty, a, b, .. } => (*dst, arith::binop(types, *op, *ty, &ev!(a), &ev!(b))?),
            Inst::FNeg { dst, ty, a } => (*dst, arith::fneg(types, *ty, &ev!(a))),
            Inst::ICmp { dst, pred, ty, a, b } => (*dst, arith::icmp(types, *pred, *ty, &ev!(a), &ev!(b))),
            Inst::FCmp { dst, pred, ty, a, b } => (*dst, arith::fcmp(types, *pred, *ty, &ev!(a), &ev!(b))),
            Inst::Select { dst, cond, a, b } => (*dst, self.select(fr, cond, a, b)),
            Inst::Cast { dst, op, from, to, a } => (*dst, arith::cast(types, *op, *from, *to, &ev!(a))?),
            Inst::Gep { dst, base, offset, indices } => (*dst, self.gep(fr, base, *offset, indices)),
            Inst::Alloca { dst, elem_size, count, var, escapes } => {
                let n = ev!(count).as_u64();
                (*dst, self.alloca(st, tid, elem_size.saturating_mul(n), *var, *escapes)?)
            }
            Inst::Load { dst, ty, ptr, order } => {
                let p = ev!(ptr).as_u64();
                let (v, u) = self.load_undef(st, p, *ty)?;
                result_undef = u;
                self.race_access(st, tid, p, types.size(*ty), false, *order)?;
                (*dst, v)
            }
            Inst::Store { ty, val, ptr, order } => {
                let (p, v) = (ev!(ptr).as_u64(), ev!(val));
                let u = self.shadow_if_tracked(st, tid, val);
                self.store(st, p, *ty, &v, u.as_ref())?;
                self.race_access(st, tid, p, types.size(*ty), true, *order)?;
                return self.advance(st, tid);
            }
            Inst::Fence { order } => {
                self.race_fence(st, tid, *order);
                return self.advance(st, tid);
            }
            Inst::CmpXchg { dst, ty, ptr, expected, new, order } => {
                let (p, e, n) = (ev!(ptr).as_u64(), ev!(expected), ev!(new));
                let un = self.shadow_if_tracked(st, tid, new);
                let (v, u) = self.cmpxchg(st, tid, p, *ty, &e, &n, un, *order)?;
                result_undef = u;
                (*dst, v)
            }
            Inst::AtomicRmw { dst, op, ty, ptr, val, order } => {
                let (p, v) = (ev!(ptr).as_u64(), ev!(val));
                let uv = self.shadow_if_tracked(st, tid, val);
                let (old, uold) = self.atomic_rmw(st, tid, p, *op, *ty, &v, uv, *order)?;
                result_undef = uold;
                (*dst, old)
            }
            Inst::ExtractValue { dst, agg, indices } => {
                let mut v = ev!(agg);
                for &i in indices.iter() {
                    v = v.lanes().get(i as usize).cloned().unwrap_or_default();
                }
                (*dst, v)
            }
            Inst::InsertValue { dst, agg, val, indices } => (*dst, insert(&ev!(agg), indices, ev!(val))),
            Inst::ExtractElement { dst, vec, idx } => {
                let i = ev!(idx).as_u64() as usize;
                (*dst, ev!(vec).lanes().get(i).cloned().unwrap_or_default())
            }
            Inst::InsertElement { dst, vec, val, idx } => {
                let i = ev!(idx).as_u64() as u32;
                (*dst, insert(&ev!(vec), &[i], ev!(val)))
            }
            Inst::ShuffleVector { dst, a, b, mask: m, .. } => (*dst, shuffle(&ev!(a), &ev!(b), m)),
            Inst::Freeze { dst, a } => (*dst, ev!(a)),
            Inst::Call { dst, callee, args, abi, .. } => {
                let argv: Vec<Val> = args.iter().map(|a| self.eval(fr, a)).collect();
                let arg_undef = self.args_undef(st, tid, inst, args);
                return self.call(st, tid, *dst, callee, argv, arg_undef, abi.as_deref(), chooser, notes);
            }
            Inst::Br { target } => return self.jump(st, tid, *target),
            Inst::CondBr { cond, then_bb, else_bb } => {
                let t = if ev!(cond).is_true() { *then_bb } else { *else_bb };
                return self.jump(st, tid, t);
            }
            Inst::Switch { val, ty, cases, default } => {
                let v = ev!(val).bits() & mask(types.int_bits(*ty));
                let t = cases.iter().find(|c| c.0 == v).map(|c| c.1).unwrap_or(*default);
                return self.jump(st, tid, t);
            }
            Inst::Ret { val } => {
                let v = val.as_ref().map(|v| ev!(v));
                let u = val.as_ref().and_then(|v| self.shadow_if_tracked(st, tid, v));
                return self.ret(st, tid, v.unwrap_or_default(), u, chooser);
            }
            Inst::Unreachable => return Err(Failure::new(ErrorKind::Abort, "reached `unreachable` (undefined behaviour, e.g. falling off the end of a non-void function)")),
            Inst::Unsupported { what } => return Err(Failure::unsupported(format!("unsupported: {what}"))),
        };
        let fr = st.thread_mut(tid).top_mut();
        fr.set_reg(dst, val);
        if result_undef.is_some() {
            fr.set_undef(dst, result_undef);
        }
        self.advance(st, tid)
    }

    /// `select`: per lane for a vector condition; a scalar one evaluates only the
    /// operand it picks.
    #[inline]
    fn select(&self, fr: &Frame, cond: &Operand, a: &Operand, b: &Operand) -> Val {
        let c = self.eval(fr, cond);
        match &c {
            Val::Agg(lanes) => {
                let (x, y) = (self.eval(fr, a), self.eval(fr, b));
                let picked = lanes.iter().enumerate().map(|(i, l)| {
                    if l.is_true() {
                        x.lanes()[i].clone()
                    } else {
                        y.lanes()[i].clone()
                    }
                });
                Val::Agg(picked.collect::<Vec<_>>().into())
            }
            _ if c.is_true() => self.eval(fr, a),
            _ => self.eval(fr, b),
        }
    }

    /// `getelementptr`: the base moved by the constant offset and each scaled index.
    #[inline]
    fn gep(
        &self,
        fr: &Frame,
        base: &Operand,
        offset: i64,
        indices: &[(Operand, i64, TyId)],
    ) -> Val {
        let types = &self.program.types;
        let mut off = offset as u64;
        for (idx, scale, ity) in indices.iter() {
            let bits = types.int_bits(*ity);
            let i = sext(self.eval(fr, idx).bits() & mask(bits), bits) as i64;
            off = off.wrapping_add(i.wrapping_mul(*scale) as u64);
        }
        match self.eval(fr, base) {
            // A GEP stays inside its object's address space: an offset that leaves
            // the object is caught as out-of-bounds when used.
            Val::Ptr(p) => {
                let (obj, o) = ptr_parts(p);
                Val::Ptr(make_ptr(obj, (o as u64).wrapping_add(off) as u32))
            }
            other => Val::Int(other.as_u64().wrapping_add(off) as u128),
        }
    }

    /// `alloca` of `size` bytes: a stack object that dies with the frame.
    #[inline]
    fn alloca(
        &self,
        st: &mut State,
        tid: ThreadId,
        size: u64,
        var: Option<u32>,
        escapes: bool,
    ) -> Result<Val, Failure> {
        if size > crate::memory::MAX_OBJECT_SIZE {
            return Err(Failure::new(
                ErrorKind::StackOverflow,
                format!("stack allocation of {size} bytes"),
            ));
        }
        let mut o = if self.opts.definedness {
            Object::new_undefined(size.max(1) as usize, ObjKind::Stack)
        } else {
            Object::new(size.max(1) as usize, ObjKind::Stack)
        };
        o.site = self.location(st, tid);
        o.var = var;
        o.frame_private = !escapes;
        let id = st.memory.allocate(o);
        st.thread_mut(tid).top_mut().allocas.push(id);
        Ok(Val::Ptr(make_ptr(id, 0)))
    }

    /// `cmpxchg` at `p`: the old value and the success flag, with their undefined
    /// bits.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn cmpxchg(
        &self,
        st: &mut State,
        tid: ThreadId,
        p: u64,
        ty: TyId,
        expected: &Val,
        new: &Val,
        new_undef: Option<Undef>,
        order: MemOrder,
    ) -> Result<(Val, Option<Undef>), Failure> {
        let types = &self.program.types;
        let (old, uold) = self.load_undef(st, p, ty)?;
        let bits = types.int_bits(ty);
        let ok = if bits > 128 {
            crate::wide::of(&old, bits) == crate::wide::of(expected, bits)
        } else {
            old.bits() & mask(bits) == expected.bits() & mask(bits)
        };
        if ok {
            self.store(st, p, ty, new, new_undef.as_ref())?;
        }
        self.race_rmw(st, tid, p, types.size(ty), ok, order)?;
        // The old value keeps its undefined bits; the success flag is taken as
        // defined (the location's bits decide it, as hardware would).
        let undef = uold.map(|u| Undef {
            shadow: Val::Agg(Arc::from(vec![u.shadow, Val::Int(0)])),
            origin: u.origin,
        });
        Ok((Val::Agg(Arc::from(vec![old, Val::bool(ok)])), undef))
    }

    /// `atomicrmw` at `p`: the old value, with its undefined bits.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn atomic_rmw(
        &self,
        st: &mut State,
        tid: ThreadId,
        p: u64,
        op: RmwOp,
        ty: TyId,
        v: &Val,
        v_undef: Option<Undef>,
        order: MemOrder,
    ) -> Result<(Val, Option<Undef>), Failure> {
        let types = &self.program.types;
        let (old, uold) = self.load_undef(st, p, ty)?;
        let new = rmw(types, op, ty, &old, v)?;
        // The new value: exchanged bits as they were, any other operation wholly
        // undefined if an input bit was.
        let unew = match op {
            RmwOp::Xchg => v_undef,
            _ => v_undef.or(uold.clone()).map(|u| Undef {
                shadow: crate::definedness::all_undefined(&new),
                origin: u.origin,
            }),
        };
        self.store(st, p, ty, &new, unew.as_ref())?;
        self.race_rmw(st, tid, p, types.size(ty), true, order)?;
        Ok((old, uold))
    }

    /// The undefined bits of a call's arguments; empty when none is tracked or all are
    /// defined.
    #[inline]
    fn args_undef(
        &self,
        st: &State,
        tid: ThreadId,
        inst: &Inst,
        args: &[Operand],
    ) -> Vec<Option<Undef>> {
        if !(self.opts.definedness && self.may_be_undefined(st, tid, inst)) {
            return Vec::new();
        }
        let fr = st.thread(tid).top();
        let arg_undef: Vec<Option<Undef>> =
            args.iter().map(|a| self.undef_of(st, tid, fr, a)).collect();
        if arg_undef.iter().all(Option::is_none) {
            return Vec::new();
        }
        arg_undef
    }

    /// The undefined bits of `op` when definedness is tracked.
    #[inline]
    fn shadow_if_tracked(
        &self,
        st: &State,
        tid: ThreadId,
        op: &crate::ir::Operand,
    ) -> Option<Undef> {
        if !self.opts.definedness {
            return None;
        }
        self.undef_of(st, tid, st.thread(tid).top(), op)
    }

    #[inline]
    pub(super) fn advance(&self, st: &mut State, tid: ThreadId) -> Result<Exec, Failure> {
        st.thread_mut(tid).top_mut().ip += 1;
        Ok(Exec::Next)
    }

    fn jump(&self, st: &mut State, tid: ThreadId, target: u32) -> Result<Exec, Failure> {
        let t = st.thread_mut(tid);
        let fr = t.top_mut();
        let body = self.program.functions[fr.func as usize]
            .body
            .as_ref()
            .expect("body");
        let from = fr.block;
        let phis = &body.blocks[target as usize].phis;
        if !phis.is_empty() {
            // φs read the old values (and their undefined bits) simultaneously.
            let track = !fr.undef.is_empty() || body.has_undef_operands;
            let undefs: Vec<Option<Undef>> = if self.opts.definedness && track {
                phis.iter()
                    .map(|phi| {
                        let op = phi
                            .incoming
                            .iter()
                            .find(|(b, _)| *b == from)
                            .map(|(_, op)| op)?;
                        match op {
                            crate::ir::Operand::Reg(r) => fr.undef_of(*r).cloned(),
                            crate::ir::Operand::Const(_) => None,
                            crate::ir::Operand::Undef(v) => Some(Undef {
                                shadow: crate::definedness::all_undefined(v),
                                origin: None,
                            }),
                        }
                    })
                    .collect()
            } else {
                Vec::new()
            };
            let vals: Vec<Val> = phis
                .iter()
                .map(|phi| {
                    phi.incoming
                        .iter()
                        .find(|(b, _)| *b == from)
                        .map(|(_, op)| self.eval(fr, op))
                        .unwrap_or_default()
                })
                .collect();
            for (phi, v) in phis.iter().zip(vals) {
                fr.set_reg(phi.dst, v);
            }
            for (phi, u) in phis.iter().zip(undefs) {
                if u.is_some() {
                    fr.set_undef(phi.dst, u);
                }
            }
        }
        fr.block = target;
        fr.ip = 0;
        Ok(Exec::Next)
    }

    pub(super) fn load(&self, st: &State, p: u64, ty: TyId) -> Result<Val, Failure> {
        self.load_undef(st, p, ty).map(|(v, _)| v)
    }

    /// A load, with the loaded bits that are undefined (when tracked).
    pub(super) fn load_undef(
        &self,
        st: &State,
        p: u64,
        ty: TyId,
    ) -> Result<(Val, Option<Undef>), Failure> {
        let types = &self.program.types;
        let size = types.size(ty);
        let (obj, off) = st.memory.check(p, size, false)?;
        let undef = if self.opts.definedness {
            self.memory_undef(st, obj, off, ty)
        } else {
            None
        };
        self.load_checked(st, obj, off, ty).map(|v| (v, undef))
    }

    fn load_checked(&self, st: &State, obj: u32, off: u32, ty: TyId) -> Result<Val, Failure> {
        let types = &self.program.types;
        let size = types.size(ty);
        let o = st.memory.get(obj).expect("checked");
        let bytes = &o.data[off as usize..(off as u64 + size) as usize];
        // Fast path: small integers without provenance.
        if let Ty::Int(bits) = types.get(ty) {
            if *bits <= 64 && (size < 8 || !o.has_ptr_at(off)) {
                let mut buf = [0u8; 8];
                buf[..size as usize].copy_from_slice(bytes);
                return Ok(Val::Int((u64::from_le_bytes(buf) as u128) & mask(*bits)));
            }
        }
        if let Ty::Other(name) = types.get(ty) {
            return Err(Failure::unsupported(format!(
                "unsupported: values of type {name}"
            )));
        }
        Ok(decode(types, ty, bytes, off, &|x| o.has_ptr_at(x)))
    }

    /// Store `v`, whose undefined bits are `undef` (None: all defined).
    pub(super) fn store(
        &self,
        st: &mut State,
        p: u64,
        ty: TyId,
        v: &Val,
        undef: Option<&Undef>,
    ) -> Result<(), Failure> {
        let types = &self.program.types;
        let size = types.size(ty);
        if let Ty::Other(name) = types.get(ty) {
            return Err(Failure::unsupported(format!(
                "unsupported: values of type {name}"
            )));
        }
        if let (Ty::Int(bits), Val::Int(x)) = (types.get(ty), v) {
            if *bits <= 64 {
                // Fast path: write the integer in place.
                let (obj, off) = st.memory.check(p, size, true)?;
                let o = st.memory.get_mut(obj).expect("checked");
                o.data[off as usize..(off as u64 + size) as usize]
                    .copy_from_slice(&(*x as u64).to_le_bytes()[..size as usize]);
                o.clear_ptrs(off, size as u32);
                match undef {
                    Some(u) => {
                        o.set_undef(
                            off,
                            size as u32,
                            &crate::definedness::encode_mask(types, ty, &u.shadow),
                        );
                        o.note_undef_from(off, size as u32, u.origin);
                    }
                    None if !o.undef.is_empty() => {
                        o.set_undef(off, size as u32, &[]);
                        o.note_undef_from(off, size as u32, None);
                    }
                    None => {}
                }
                return Ok(());
            }
        }
        let mut bytes = vec![0u8; size as usize];
        let mut ptrs = Vec::new();
        encode(types, ty, v, &mut bytes, 0, &mut ptrs);
        let shared = st.memory.is_shared(p);
        st.memory.write_fragment_from(
            p,
            &Fragment {
                data: bytes,
                ptrs: ptrs.clone(),
                undef: undef
                    .map(|u| crate::definedness::encode_mask(types, ty, &u.shadow))
                    .unwrap_or_default(),
            },
            undef.and_then(|u| u.origin),
        )?;
        if shared && !ptrs.is_empty() {
            // Storing a pointer into shared memory shares what it points to.
            let mut stack = Vec::new();
            v.for_each_pointer(&mut |q| stack.push(q));
            for q in stack {
                let (obj, _) = ptr_parts(q);
                st.share(obj);
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn call(
        &self,
        st: &mut State,
        tid: ThreadId,
        dst: Option<u32>,
        callee: &Callee,
        args: Vec<Val>,
        arg_undef: Vec<Option<Undef>>,
        abi: Option<&CallAbi>,
        chooser: &mut dyn Chooser,
        notes: Option<&mut Vec<String>>,
    ) -> Result<Exec, Failure> {
        let fid = match callee {
            Callee::Direct(f) => *f,
            Callee::Indirect(op) => self.indirect_callee(st, tid, op)?,
            Callee::AsmFence => return self.advance(st, tid),
            Callee::Intrinsic(i) => {
                return self.call_intrinsic(st, tid, dst, i, &args, &arg_undef);
            }
        };
        let func = &self.program.functions[fid as usize];
        if func.body.is_some() {
            let mut ret = ReturnTo::Caller;
            if self.atomic_functions[fid as usize] && st.atomic_owner.is_none() {
                // Like a locked instruction: what the thread stored before is in
                // memory when the section starts.
                self.fence(st, tid, chooser)?;
                st.atomic_owner = Some(tid);
                self.race_atomic_section(st, tid, true);
                ret = ReturnTo::CallerEndsAtomic;
            }
            return self
                .push_frame(st, tid, fid, args, &arg_undef, abi, ret)
                .map(|_| Exec::Next);
        }
        let Some(native) = self.natives[fid as usize].clone() else {
            return Err(Failure::unsupported(format!(
                "unsupported: call to `{}`, a function the checker does not model",
                crate::ir::debug::display_name(&func.name)
            )));
        };
        self.call_native(st, tid, dst, &native, args, arg_undef, chooser, notes)
    }

    /// The function an indirect call's pointer names.
    fn indirect_callee(&self, st: &State, tid: ThreadId, op: &Operand) -> Result<FuncId, Failure> {
        let v = self.eval(st.thread(tid).top(), op);
        match self.function_of(&v) {
            Some(f) => Ok(f),
            None if v.as_u64() == 0 => Err(Failure::new(
                ErrorKind::NullDereference,
                "call through a null function pointer",
            )),
            None => Err(Failure::new(
                ErrorKind::OutOfBounds,
                "call through a pointer that is not a function",
            )),
        }
    }

    fn call_intrinsic(
        &self,
        st: &mut State,
        tid: ThreadId,
        dst: Option<u32>,
        i: &crate::ir::Intrinsic,
        args: &[Val],
        arg_undef: &[Option<Undef>],
    ) -> Result<Exec, Failure> {
        // Undefined lengths and addresses are refused before the call acts.
        let probe = Val::Int(0);
        if !arg_undef.is_empty() {
            self.intrinsic_undef(i, args, arg_undef, &probe)?;
        }
        let v = intrinsics::call(self, st, tid, i, args)?;
        let u = if arg_undef.is_empty() {
            None
        } else {
            self.intrinsic_undef(i, args, arg_undef, &v)?
        };
        if let (crate::ir::Intrinsic::Memset, Some(Some(_))) = (i, arg_undef.get(1)) {
            // memset with an undefined byte: the bytes written are undefined.
            let (d, n) = (args[0].as_u64(), args[2].as_u64());
            let (obj, off) = ptr_parts(d);
            if let Some(o) = st.memory.get_mut(obj).filter(|_| n > 0) {
                o.set_undef(off, n as u32, &vec![0xff; n as usize]);
            }
        }
        if let Some(d) = dst {
            let fr = st.thread_mut(tid).top_mut();
            fr.set_reg(d, v);
            if u.is_some() {
                fr.set_undef(d, u);
            }
        }
        self.advance(st, tid)
    }

    /// Runs a native, reports what it read and wrote as the call's accesses, and acts
    /// on its result.
    #[allow(clippy::too_many_arguments)]
    fn call_native(
        &self,
        st: &mut State,
        tid: ThreadId,
        dst: Option<u32>,
        native: &Native,
        args: Vec<Val>,
        arg_undef: Vec<Option<Undef>>,
        chooser: &mut dyn Chooser,
        notes: Option<&mut Vec<String>>,
    ) -> Result<Exec, Failure> {
        if !arg_undef.is_empty() {
            crate::natives::require_defined_args(native, &arg_undef, |o| self.origin_text(o))?;
        }
        let (r, ret_undef, accessed, dealloc_races, program_races) =
            self.with_cx(st, tid, native.name, chooser, notes, |cx| {
                cx.arg_undef = arg_undef;
                if native.data_accesses {
                    cx.data_view = self.data_view.clone();
                } else {
                    cx.data_accesses = None;
                }
                let r = (native.call)(cx, &args);
                let dealloc_races = std::mem::take(&mut cx.dealloc_races);
                let program_races = std::mem::take(&mut cx.program_races);
                (
                    r,
                    cx.ret_undef.take(),
                    cx.data_accesses.take(),
                    dealloc_races,
                    program_races,
                )
            });
        // A race the call's own accesses found stands even when the call then failed.
        self.report_program_races(st, program_races)?;
        let r = r?;
        self.report_dealloc_races(st, dealloc_races)?;
        if !matches!(r, NativeResult::Block) {
            // What the library function read and wrote, as plain accesses of this call.
            for a in accessed.map(|a| a.into_inner()).unwrap_or_default() {
                self.race_access(st, tid, a.ptr, a.len, a.write, MemOrder::NotAtomic)?;
            }
        }
        self.native_result(st, tid, dst, native.name, r, ret_undef, chooser)
    }

    /// What the thread does after native `name` returned `r`.
    #[allow(clippy::too_many_arguments)]
    fn native_result(
        &self,
        st: &mut State,
        tid: ThreadId,
        dst: Option<u32>,
        name: &str,
        r: NativeResult,
        ret_undef: Option<Undef>,
        chooser: &mut dyn Chooser,
    ) -> Result<Exec, Failure> {
        match r {
            NativeResult::Return(v) => {
                let t = st.thread_mut(tid);
                t.phase = 0;
                if let Some(d) = dst {
                    let fr = t.top_mut();
                    fr.set_reg(d, v);
                    if ret_undef.is_some() {
                        fr.set_undef(d, ret_undef);
                    }
                }
                self.advance(st, tid)
            }
            NativeResult::Jumped => {
                st.thread_mut(tid).phase = 0;
                self.advance(st, tid)
            }
            NativeResult::Block => Ok(Exec::Blocked),
            NativeResult::Prune => Ok(Exec::Pruned),
            NativeResult::Yield => Ok(Exec::EndTransition),
            NativeResult::CallBack { func, args } => self.call_back(st, tid, name, func, args),
            NativeResult::Exit(code) => {
                st.exit_code = Some(code);
                Ok(Exec::EndTransition)
            }
            NativeResult::ThreadExit(value) => {
                // pthread_exit's argument keeps its undefined bits (`ret_undef`).
                let v = ExitValue {
                    value,
                    undef: ret_undef,
                };
                self.finish_thread(st, tid, v, chooser)?;
                Ok(Exec::EndTransition)
            }
        }
    }

    /// Native `name` calls the program's function at address `func`; the native runs
    /// again, at its next phase, when it returns.
    fn call_back(
        &self,
        st: &mut State,
        tid: ThreadId,
        name: &str,
        func: u64,
        args: Vec<Val>,
    ) -> Result<Exec, Failure> {
        if func == 0 {
            return Err(Failure::new(
                ErrorKind::NullDereference,
                format!("{name} calls a null function pointer"),
            ));
        }
        let Some(f) = self.function_of(&Val::Int(func as u128)) else {
            return Err(Failure::new(
                ErrorKind::OutOfBounds,
                "callback through a pointer that is not a function",
            ));
        };
        if self.program.functions[f as usize].body.is_none() {
            return Err(Failure::unsupported(format!(
                "unsupported: callback to `{}`",
                self.program.functions[f as usize].name
            )));
        }
        let phase = std::mem::take(&mut st.thread_mut(tid).phase);
        self.push_frame(st, tid, f, args, &[], None, ReturnTo::Native { phase })?;
        Ok(Exec::Next)
    }

    #[allow(clippy::too_many_arguments)]
    fn push_frame(
        &self,
        st: &mut State,
        tid: ThreadId,
        fid: FuncId,
        mut args: Vec<Val>,
        arg_undef: &[Option<Undef>],
        abi: Option<&CallAbi>,
        ret: ReturnTo,
    ) -> Result<(), Failure> {
        if st.thread(tid).frames.len() >= self.opts.max_frames {
            return Err(Failure::new(
                ErrorKind::StackOverflow,
                format!(
                    "call depth exceeded {} frames (unbounded recursion?)",
                    self.opts.max_frames
                ),
            ));
        }
        let func = &self.program.functions[fid as usize];
        let params = func.params as usize;
        let mut byval_copies = Vec::new();
        if let Some(abi) = abi {
            // byval: the callee works on its own copy of the caller's object.
            let fixed = params.min(args.len());
            for &(k, size) in abi.byval.iter().filter(|(k, _)| (*k as usize) < fixed) {
                let frag = st.memory.read_fragment(args[k as usize].as_u64(), size)?;
                let mut o = Object::new(size as usize, ObjKind::Stack);
                o.data.copy_from_slice(&frag.data);
                o.ptrs = frag.ptrs;
                o.undef = frag.undef;
                let id = st.memory.allocate(o);
                byval_copies.push(id);
                args[k as usize] = Val::Ptr(make_ptr(id, 0));
            }
        }
        let mut frame = self.frame(fid, args[..params.min(args.len())].to_vec(), ret);
        frame.allocas = byval_copies;
        // Parameters are the first registers; they keep the arguments' undefined bits
        // (a byval copy's are in its bytes).
        for (k, u) in arg_undef.iter().enumerate().take(params) {
            let byval = abi.is_some_and(|abi| abi.byval.iter().any(|(i, _)| *i as usize == k));
            if u.is_some() && !byval {
                frame.set_undef(k as u32, u.clone());
            }
        }
        if func.variadic && args.len() > params {
            frame.varargs = Some(self.varargs_area(st, &args, arg_undef, params, abi)?);
        }
        st.thread_mut(tid).frames.push(frame);
        Ok(())
    }

    /// The overflow area that clang's x86-64 va_arg lowering reads from: each argument
    /// in 8-byte slots, byval structs copied in whole.
    fn varargs_area(
        &self,
        st: &mut State,
        args: &[Val],
        arg_undef: &[Option<Undef>],
        params: usize,
        abi: Option<&CallAbi>,
    ) -> Result<u32, Failure> {
        let types = &self.program.types;
        let mut data: Vec<u8> = Vec::new();
        let mut ptrs = Vec::new();
        let mut undef: Vec<u8> = Vec::new();
        for (k, a) in args.iter().enumerate().skip(params) {
            let start = data.len();
            let byval = abi
                .and_then(|abi| abi.byval.iter().find(|(i, _)| *i as usize == k))
                .map(|b| b.1);
            let ty = abi.and_then(|abi| abi.arg_tys.get(k).copied());
            let u = arg_undef.get(k).and_then(|u| u.as_ref());
            undef.resize(start, 0);
            if let Some(size) = byval {
                let frag = st.memory.read_fragment(a.as_u64(), size)?;
                data.extend_from_slice(&frag.data);
                ptrs.extend(frag.ptrs.iter().map(|p| p + start as u32));
                undef.extend_from_slice(&frag.undef);
            } else if let Some(ty) =
                ty.filter(|&t| matches!(a, Val::Agg(_)) || types.int_bits(t) > 64)
            {
                // Aggregates and integers wider than 64 bits: their memory bytes.
                let mut bytes = vec![0u8; types.size(ty) as usize];
                let mut local = Vec::new();
                encode(types, ty, a, &mut bytes, 0, &mut local);
                data.extend_from_slice(&bytes);
                ptrs.extend(local.iter().map(|p| p + start as u32));
                if let Some(u) = u {
                    undef.extend(crate::definedness::encode_mask(types, ty, &u.shadow));
                }
            } else {
                data.extend_from_slice(&(a.bits() as u64).to_le_bytes());
                if matches!(a, Val::Ptr(_)) {
                    ptrs.push(start as u32);
                }
                if let Some(u) = u {
                    let width = ty.map_or(64, |t| types.int_bits(t).max(8));
                    let bits = crate::definedness::smear(&u.shadow) & mask(width);
                    undef.extend_from_slice(&(bits as u64).to_le_bytes());
                }
            }
            data.resize(data.len().div_ceil(8) * 8, 0);
        }
        let mut o = Object::new(data.len().max(8), ObjKind::Internal);
        o.data[..data.len()].copy_from_slice(&data);
        o.ptrs = ptrs;
        if undef.iter().any(|&b| b != 0) {
            undef.resize(o.data.len(), 0);
            o.undef = undef;
        }
        Ok(st.memory.allocate(o))
    }

    fn ret(
        &self,
        st: &mut State,
        tid: ThreadId,
        v: Val,
        undef: Option<Undef>,
        chooser: &mut dyn Chooser,
    ) -> Result<Exec, Failure> {
        if tid == 0 && st.thread(tid).frames.len() == 1 && st.thread(tid).pending_exit.is_none() {
            self.require_defined_status(undef.as_ref())?;
        }
        let frame = self.pop_frame(st, tid)?;
        if st.thread(tid).frames.is_empty() {
            if tid == 0 {
                // (Checked above: the status has no undefined bit.)
                return self.main_returned(st, v);
            }
            return self.start_routine_returned(st, tid, ExitValue { value: v, undef }, chooser);
        }
        if frame.ret == ReturnTo::CallerEndsAtomic && st.atomic_owner == Some(tid) {
            // What the section stored reaches memory before another thread can run.
            self.fence(st, tid, chooser)?;
            st.atomic_owner = None;
            self.race_atomic_section(st, tid, false);
        }
        let t = st.thread_mut(tid);
        match frame.ret {
            ReturnTo::Caller | ReturnTo::CallerEndsAtomic => {
                let top = t.top_mut();
                let body = self.program.functions[top.func as usize]
                    .body
                    .as_ref()
                    .expect("body");
                if let Inst::Call { dst: Some(d), .. } =
                    &body.blocks[top.block as usize].insts[top.ip as usize]
                {
                    top.set_reg(*d, v);
                    if undef.is_some() {
                        top.set_undef(*d, undef);
                    }
                }
                top.ip += 1;
                Ok(Exec::Next)
            }
            ReturnTo::Native { phase } => {
                // The library function that called back inspects the result (a
                // comparator's order); the other callbacks return void.
                if let Some(u) = undef.filter(|u| crate::definedness::smear(&u.shadow) != 0) {
                    let name = &self.program.functions[frame.func as usize].name;
                    return Err(crate::definedness::error(
                        &format!("the result of callback `{name}`, which the library inspects,"),
                        self.origin_text(u.origin).as_deref(),
                    ));
                }
                t.phase = phase;
                t.callback_result = Some(v);
                Ok(Exec::Next)
            }
            ReturnTo::Nothing => Ok(Exec::Next),
        }
    }

    /// main's return value is the exit status: none of its low 32 bits may be
    /// undefined.
    fn require_defined_status(&self, undef: Option<&Undef>) -> Result<(), Failure> {
        match undef.filter(|u| crate::definedness::smear(&u.shadow) & 0xffff_ffff != 0) {
            Some(u) => Err(crate::definedness::error(
                "main's return value (the exit status)",
                self.origin_text(u.origin).as_deref(),
            )),
            None => Ok(()),
        }
    }

    /// Pops `tid`'s top frame. Stack objects die with the frame; dangling pointers to
    /// them are then caught.
    fn pop_frame(&self, st: &mut State, tid: ThreadId) -> Result<Frame, Failure> {
        let site = match (&st.races, st.thread(tid).frames.last()) {
            (Some(_), Some(f)) => {
                self.dealloc_site(st, tid, f.allocas.iter().chain(f.varargs.iter()))
            }
            _ => None,
        };
        let t = st.thread_mut(tid);
        let frame = t.frames.pop().expect("returning frame");
        t.frames_popped();
        for &id in frame.allocas.iter().chain(frame.varargs.iter()) {
            self.dealloc(st, tid, id, site)?;
        }
        Ok(frame)
    }

    /// Returning from main is exit(status): atexit handlers run first, last
    /// registered first.
    fn main_returned(&self, st: &mut State, v: Val) -> Result<Exec, Failure> {
        let status = st.thread_mut(0).pending_exit.take().map_or(v, |e| e.value);
        let Some(handler) = st.atexit.pop() else {
            st.exit_code = Some(status.bits() as i32);
            return Ok(Exec::EndTransition);
        };
        if handler == 0 {
            return Err(Failure::new(
                ErrorKind::NullDereference,
                "exit calls a null atexit handler",
            ));
        }
        let Some(fid) = self.program_function_at(handler) else {
            return Err(Failure::unsupported(
                "unsupported: an atexit handler that is not a program function",
            ));
        };
        st.thread_mut(0).pending_exit = Some(ExitValue {
            value: status,
            undef: None,
        });
        self.push_frame(st, 0, fid, Vec::new(), &[], None, ReturnTo::Nothing)?;
        Ok(Exec::Next)
    }

    /// A thread's start routine returned `value`: key destructors run first, as with
    /// pthread_exit, then the thread ends.
    fn start_routine_returned(
        &self,
        st: &mut State,
        tid: ThreadId,
        value: ExitValue,
        chooser: &mut dyn Chooser,
    ) -> Result<Exec, Failure> {
        let value = st.thread_mut(tid).pending_exit.take().unwrap_or(value);
        let next = self.with_cx(
            st,
            tid,
            "pthread_exit",
            chooser,
            None,
            crate::pthread::next_key_destructor,
        );
        if let Some((f, arg)) = next {
            let Some(fid) = self.program_function_at(f) else {
                return Err(Failure::unsupported(
                    "unsupported: a pthread key destructor that is not a program function",
                ));
            };
            st.thread_mut(tid).pending_exit = Some(value);
            self.push_frame(st, tid, fid, vec![arg], &[], None, ReturnTo::Nothing)?;
            return Ok(Exec::Next);
        }
        self.finish_thread(st, tid, value, chooser)?;
        Ok(Exec::EndTransition)
    }

    /// The function with a body at address `f`.
    fn program_function_at(&self, f: u64) -> Option<FuncId> {
        self.function_of(&Val::Int(f as u128))
            .filter(|&f| self.program.functions[f as usize].body.is_some())
    }

    fn finish_thread(
        &self,
        st: &mut State,
        tid: ThreadId,
        v: ExitValue,
        chooser: &mut dyn Chooser,
    ) -> Result<(), Failure> {
        if let Some(hook) = &self.thread_exit_hook {
            self.with_cx(st, tid, hook.name, chooser, None, |cx| (hook.call)(cx, &[]))?;
        }
        // Remaining frames (pthread_exit from deep inside) release their stack objects.
        let dying: Vec<ObjId> = st
            .thread(tid)
            .frames
            .iter()
            .flat_map(|f| f.allocas.iter().chain(f.varargs.iter()).copied())
            .collect();
        let site = self.dealloc_site(st, tid, &dying);
        st.thread_mut(tid).frames.clear();
        st.thread_mut(tid).frames_popped();
        for id in dying {
            self.dealloc(st, tid, id, site)?;
        }
        let t = st.thread_mut(tid);
        t.status = ThreadStatus::Finished(v);
        t.phase = 0;
        if st.atomic_owner == Some(tid) {
            st.atomic_owner = None;
            self.race_atomic_section(st, tid, false);
        }
        Ok(())
    }

    /// A full memory barrier for `tid` (the runtime's fence hook; nothing under SC).
    fn fence(
        &self,
        st: &mut State,
        tid: ThreadId,
        chooser: &mut dyn Chooser,
    ) -> Result<(), Failure> {
        if let Some(hook) = &self.fence_hook {
            self.with_cx(st, tid, hook.name, chooser, None, |cx| (hook.call)(cx, &[]))?;
        }
        Ok(())
    }

    /// Run `f` with a native-call context for thread `tid`.
    fn with_cx<R>(
        &self,
        st: &mut State,
        tid: ThreadId,
        native: &'static str,
        chooser: &mut dyn Chooser,
        notes: Option<&mut Vec<String>>,
        f: impl FnOnce(&mut NativeCx<'_>) -> R,
    ) -> R {
        let spawn = |s: &mut State, func: u64, a: Vec<Val>| self.spawn(s, func, a);
        let data_accesses =
            (st.races.is_some() || crate::race::screen::probing()).then(Default::default);
        let mut cx = NativeCx {
            state: st,
            program: self.program,
            tid,
            native,
            chooser,
            notes,
            spawn: &spawn,
            user_location_of: |program, st, tid, loc| {
                super::attribute(program, st, tid, loc).location()
            },
            max_memory: self.opts.max_memory,
            spurious_wakeups: self.opts.spurious_wakeups,
            fence_hook: self.fence_hook.clone(),
            evict_hook: self.evict_hook.clone(),
            sync_hook: self.sync_hook.clone(),
            definedness: self.opts.definedness,
            arg_undef: Vec::new(),
            ret_undef: None,
            data_accesses,
            data_view: None,
            viewed: Vec::new(),
            dealloc_races: Vec::new(),
            program_races: Vec::new(),
        };
        f(&mut cx)
    }

    /// Create a thread that runs `func(args)`.
    pub(crate) fn spawn(
        &self,
        st: &mut State,
        func: u64,
        args: Vec<Val>,
    ) -> Result<ThreadId, Failure> {
        if func == 0 {
            // The new thread would call NULL.
            return Err(Failure::new(
                ErrorKind::NullDereference,
                "thread start routine is a null function pointer",
            ));
        }
        let Some(fid) = self.function_of(&Val::Int(func as u128)) else {
            return Err(Failure::new(
                ErrorKind::PthreadMisuse,
                "thread start routine is not a function",
            ));
        };
        if self.program.functions[fid as usize].body.is_none() {
            return Err(Failure::unsupported(format!(
                "unsupported: thread start routine `{}` has no body",
                self.program.functions[fid as usize].name
            )));
        }
        // The argument is now reachable by two threads.
        for a in &args {
            let mut ps = Vec::new();
            a.for_each_pointer(&mut |p| ps.push(p));
            for p in ps {
                st.memory.mark_shared(ptr_parts(p).0);
            }
        }
        Ok(st.add_thread(Thread::new(self.frame(fid, args, ReturnTo::Nothing))))
    }
}

/// `shufflevector`: lane k of the result is lane `mask[k]` of `a` then `b` (zero
/// for an undefined, negative, mask entry).
#[inline]
fn shuffle(a: &Val, b: &Val, m: &[i32]) -> Val {
    let (la, lb) = (a.lanes(), b.lanes());
    let n = la.len() as i32;
    let v: Vec<Val> = m
        .iter()
        .map(|&k| {
            if k < 0 {
                Val::Int(0)
            } else if k < n {
                la[k as usize].clone()
            } else {
                lb.get((k - n) as usize).cloned().unwrap_or_default()
            }
        })
        .collect();
    Val::Agg(v.into())
}

fn insert(agg: &Val, path: &[u32], v: Val) -> Val {
    let Some((&first, rest)) = path.split_first() else {
        return v;
    };
    let mut lanes: Vec<Val> = agg.lanes().to_vec();
    if let Some(slot) = lanes.get_mut(first as usize) {
        *slot = insert(slot, rest, v);
    }
    Val::Agg(lanes.into())
}

fn rmw(
    types: &crate::ir::TypeTable,
    op: RmwOp,
    ty: TyId,
    old: &Val,
    v: &Val,
) -> Result<Val, Failure> {
    use crate::ir::BinOp;
    let bits = types.int_bits(ty);
    if bits > 128 {
        return rmw_wide(types, op, ty, old, v);
    }
    let m = mask(bits);
    let (a, b) = (old.bits() & m, v.bits() & m);
    Ok(match op {
        RmwOp::Xchg => v.clone(),
        RmwOp::Add => arith::binop(types, BinOp::Add, ty, old, v)?,
        RmwOp::Sub => arith::binop(types, BinOp::Sub, ty, old, v)?,
        // Through `binop`, which keeps a pointer's provenance (a pointer tagged in its
        // low bits by `fetch_or`, a tagged pointer's lane).
        RmwOp::And => arith::binop(types, BinOp::And, ty, old, v)?,
        RmwOp::Nand => Val::Int(!(a & b) & m),
        RmwOp::Or => arith::binop(types, BinOp::Or, ty, old, v)?,
        RmwOp::Xor => arith::binop(types, BinOp::Xor, ty, old, v)?,
        RmwOp::Max => Val::Int(if sext(a, bits) >= sext(b, bits) { a } else { b }),
        RmwOp::Min => Val::Int(if sext(a, bits) <= sext(b, bits) { a } else { b }),
        RmwOp::UMax => Val::Int(a.max(b)),
        RmwOp::UMin => Val::Int(a.min(b)),
        RmwOp::FAdd => arith::binop(types, BinOp::FAdd, ty, old, v)?,
        RmwOp::FSub => arith::binop(types, BinOp::FSub, ty, old, v)?,
        RmwOp::FMax | RmwOp::FMin => {
            let (x, y) = (old.f64(), v.f64());
            let r = if op == RmwOp::FMax {
                x.max(y)
            } else {
                x.min(y)
            };
            if bits == 32 {
                Val::F32((r as f32).to_bits())
            } else {
                Val::F64(r.to_bits())
            }
        }
        RmwOp::UIncWrap => Val::Int(if a >= b { 0 } else { a + 1 }),
        RmwOp::UDecWrap => Val::Int(if a == 0 || a > b { b } else { a - 1 }),
    })
}

/// `rmw` on integers wider than 128 bits, through the interpreter's wide arithmetic.
#[cold]
#[inline(never)]
fn rmw_wide(
    types: &crate::ir::TypeTable,
    op: RmwOp,
    ty: TyId,
    old: &Val,
    v: &Val,
) -> Result<Val, Failure> {
    use crate::ir::{BinOp, IntPred};
    let bin = |op, x: &Val, y: &Val| arith::binop(types, op, ty, x, y);
    let pick = |pred, x: &Val, y: &Val| {
        if arith::icmp(types, pred, ty, x, y).is_true() {
            x.clone()
        } else {
            y.clone()
        }
    };
    let bits = types.int_bits(ty);
    let one = crate::wide::val(crate::wide::of(&Val::Int(1), bits), bits);
    let zero = crate::wide::val(crate::wide::zero(bits), bits);
    Ok(match op {
        RmwOp::Xchg => v.clone(),
        RmwOp::Add => bin(BinOp::Add, old, v)?,
        RmwOp::Sub => bin(BinOp::Sub, old, v)?,
        RmwOp::And => bin(BinOp::And, old, v)?,
        RmwOp::Nand => {
            let ones = crate::wide::val(crate::wide::ones(bits), bits);
            bin(BinOp::Xor, &bin(BinOp::And, old, v)?, &ones)?
        }
        RmwOp::Or => bin(BinOp::Or, old, v)?,
        RmwOp::Xor => bin(BinOp::Xor, old, v)?,
        RmwOp::Max => pick(IntPred::Sge, old, v),
        RmwOp::Min => pick(IntPred::Sle, old, v),
        RmwOp::UMax => pick(IntPred::Uge, old, v),
        RmwOp::UMin => pick(IntPred::Ule, old, v),
        RmwOp::UIncWrap if arith::icmp(types, IntPred::Uge, ty, old, v).is_true() => zero,
        RmwOp::UIncWrap => bin(BinOp::Add, old, &one)?,
        RmwOp::UDecWrap
            if arith::icmp(types, IntPred::Eq, ty, old, &zero).is_true()
                || arith::icmp(types, IntPred::Ugt, ty, old, v).is_true() =>
        {
            v.clone()
        }
        RmwOp::UDecWrap => bin(BinOp::Sub, old, &one)?,
        RmwOp::FAdd | RmwOp::FSub | RmwOp::FMax | RmwOp::FMin => {
            return Err(Failure::unsupported(format!(
                "unsupported: floating-point atomicrmw on i{bits}"
            )))
        }
    })
}
