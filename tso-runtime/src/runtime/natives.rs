//! The `__tso_*` natives.

use super::env::{fragment, payload, Chooser, Env, Mem};
use super::footprint;
use super::observe;
use super::state::{Buffers, ShowMemory, TsoState};
use super::RuntimeOptions;
use crate::abi::{self, RmwOp};
use crate::buffer::{BufferError, Payload, Range};
use std::cell::RefCell;
use tso_engine::{
    arg, arg_val, describe_address, describe_pointer, describe_scalar_at, ptr_parts, Access,
    DataView, ErrorKind, Failure, Fragment, NativeCx, NativeResult, Natives, Program, State,
    ThreadId, Val, Visibility,
};

type BufResult<T> = Result<T, BufferError<Failure>>;

pub(crate) fn register(n: &mut Natives, opts: &RuntimeOptions) {
    for (i, &bits) in abi::ACCESS_WIDTHS.iter().enumerate() {
        let o = opts.clone();
        n.add_described(
            abi::LOAD[i],
            Visibility::IfShared(0),
            describe_load,
            move |cx, a| {
                let p = arg(a, 0)?;
                let v = load(cx, &o, p, bits / 8)?;
                Ok(NativeResult::Return(loaded(cx, &v, p)))
            },
        );
        // A store into the buffer, and the locked one (`xchg`: drain, then write memory).
        let stores: [(&str, Visibility, _, bool); 2] = [
            (
                abi::STORE[i],
                Visibility::IfShared(0),
                by_width(
                    bits,
                    [
                        describe_store::<1>,
                        describe_store::<2>,
                        describe_store::<4>,
                        describe_store::<8>,
                    ],
                ),
                false,
            ),
            (
                abi::STORE_LOCKED[i],
                Visibility::Custom(locked_visible),
                by_width(
                    bits,
                    [
                        describe_store_locked::<1>,
                        describe_store_locked::<2>,
                        describe_store_locked::<4>,
                        describe_store_locked::<8>,
                    ],
                ),
                true,
            ),
        ];
        for (name, visibility, describe, is_locked) in stores {
            let o = opts.clone();
            n.add_described(name, visibility, describe, move |cx, a| {
                let p = arg(a, 0)?;
                let v = arg_val(a, 1)?;
                let payload = val_to_payload(&v, cx.arg_undefined(1), bits / 8);
                if is_locked {
                    locked(cx, &o, p, bits / 8, |_| Some(payload))?;
                } else {
                    store(cx, &o, p, payload)?;
                }
                Ok(NativeResult::Return(Val::Int(0)))
            });
        }
        let o = opts.clone();
        n.add_described(
            abi::RMW[i],
            Visibility::Custom(locked_visible),
            by_width(
                bits,
                [
                    describe_rmw::<1>,
                    describe_rmw::<2>,
                    describe_rmw::<4>,
                    describe_rmw::<8>,
                ],
            ),
            move |cx, a| {
                let (p, operand, code) = (arg(a, 0)?, arg_val(a, 1)?, arg(a, 2)? as u32);
                let op = rmw_op(code)?;
                let operand_undef = cx.arg_undefined(1).cloned();
                let old = locked(cx, &o, p, bits / 8, |old| {
                    rmw_written(op, bits, old, &operand, operand_undef.as_ref())
                })?;
                Ok(NativeResult::Return(loaded(cx, &old, p)))
            },
        );
        let o = opts.clone();
        n.add_described(
            abi::CMPXCHG[i],
            Visibility::Custom(locked_visible),
            by_width(
                bits,
                [
                    describe_cmpxchg::<1>,
                    describe_cmpxchg::<2>,
                    describe_cmpxchg::<4>,
                    describe_cmpxchg::<8>,
                ],
            ),
            move |cx, a| {
                let (p, expected) = (arg(a, 0)?, arg(a, 1)?);
                let desired = arg_val(a, 2)?;
                let desired_undef = cx.arg_undefined(2).cloned();
                let old = locked(cx, &o, p, bits / 8, |old| {
                    (old.to_int() == expected)
                        .then(|| val_to_payload(&desired, desired_undef.as_ref(), bits / 8))
                })?;
                Ok(NativeResult::Return(loaded(cx, &old, p)))
            },
        );
    }
    let o = opts.clone();
    n.add_described(
        abi::CMPXCHG_128,
        Visibility::Custom(locked_visible),
        describe_cmpxchg_128,
        move |cx, a| {
            let p = arg(a, 0)?;
            let (expected, desired) = (arg_val(a, 1)?.bits(), arg_val(a, 2)?);
            let desired_undef = cx.arg_undefined(2).cloned();
            // A locked instruction like the narrower ones: it drains the thread's
            // buffer, then compares and writes all 16 bytes in memory at once. The
            // pointers of a tagged pointer keep their provenance both ways.
            let old = locked(cx, &o, p, 16, |old| {
                (old.to_u128() == expected)
                    .then(|| val_to_payload(&desired, desired_undef.as_ref(), 16))
            })?;
            Ok(NativeResult::Return(loaded(cx, &old, p)))
        },
    );
    let o = opts.clone();
    n.add_described(
        abi::RMW_128,
        Visibility::Custom(locked_visible),
        describe_rmw_128,
        move |cx, a| {
            let (p, operand, code) = (arg(a, 0)?, arg_val(a, 1)?, arg(a, 2)? as u32);
            let op = rmw_op(code)?;
            let operand_undef = cx.arg_undefined(1).cloned();
            // Locked like `__tso_cmpxchg_128`: drains the thread's buffer, then reads and
            // writes all 16 bytes in memory at once.
            let old = locked(cx, &o, p, 16, |old| {
                rmw_written_128(op, old, &operand, operand_undef.as_ref())
            })?;
            Ok(NativeResult::Return(loaded(cx, &old, p)))
        },
    );
    let o = opts.clone();
    n.add_described(
        abi::LOAD_BYTES,
        Visibility::IfShared(1),
        describe_copy,
        move |cx, a| {
            let (dst, src, len) = (arg(a, 0)?, arg(a, 1)?, arg(a, 2)?);
            let v = load(cx, &o, src, checked_len(len)?)?;
            cx.write_fragment(dst, &fragment(&v))?;
            Ok(NativeResult::Return(Val::Int(0)))
        },
    );
    let o = opts.clone();
    n.add_described(
        abi::STORE_BYTES,
        Visibility::IfShared(0),
        describe_copy,
        move |cx, a| {
            let (dst, src, len) = (arg(a, 0)?, arg(a, 1)?, arg(a, 2)?);
            let f = cx.read_fragment(src, len)?;
            store(cx, &o, dst, payload(f))?;
            Ok(NativeResult::Return(Val::Int(0)))
        },
    );
    for name in [abi::MEMCPY, abi::MEMMOVE] {
        let o = opts.clone();
        n.add_described(
            name,
            Visibility::IfShared2(0, 1),
            describe_copy,
            move |cx, a| {
                let (dst, src, len) = (arg(a, 0)?, arg(a, 1)?, arg(a, 2)?);
                if len > 0 {
                    let v = load(cx, &o, src, checked_len(len)?)?;
                    store(cx, &o, dst, v)?;
                }
                Ok(NativeResult::Return(Val::Int(0)))
            },
        );
    }
    let o = opts.clone();
    n.add_described(
        abi::MEMSET,
        Visibility::IfShared(0),
        describe_copy,
        move |cx, a| {
            let (dst, byte, len) = (arg(a, 0)?, arg(a, 1)? as u8, arg(a, 2)?);
            if len > 0 {
                // Check the destination before building the bytes (len may be huge).
                cx.check(dst, checked_len(len)? as u64, Access::Write)?;
                store(
                    cx,
                    &o,
                    dst,
                    Payload::from_bytes(vec![byte; checked_len(len)? as usize]),
                )?;
            }
            Ok(NativeResult::Return(Val::Int(0)))
        },
    );
    n.add_described(
        abi::FENCE,
        Visibility::Custom(fence_visible),
        |_, _, _| "mfence".into(),
        draining(opts),
    );
    n.add_described(
        abi::CALL_FENCE,
        Visibility::Custom(fence_visible),
        |_, _, _| "mfence (library call)".into(),
        draining(opts),
    );
    n.mark_detail(abi::CALL_FENCE);
    carry_undefined_values(n);
    // A load reads through the buffers (its choices only decide which buffered stores
    // reached memory before it); a fence drains the caller's own buffer, which flushes
    // may always do later: a spin iteration made of them can be deleted (awaits).
    for name in abi::LOAD.iter().chain([&abi::FENCE, &abi::CALL_FENCE]) {
        n.mark_reads_only(name);
    }
    n.add_described(
        abi::EVICT,
        Visibility::IfShared(0),
        describe_evict,
        evicting(opts),
    );
    n.mark_object_dies(abi::EVICT);
    // A thread's end drains its own buffer: a visible action when that holds entries.
    register_program_accesses(n);
    n.set_thread_exit_hook(Visibility::Custom(own_buffer_nonempty), draining(opts));
    n.set_evict_hook(evicting(opts));
    n.set_fence_hook(draining(opts));
    n.set_data_view(std::sync::Arc::new(BufferedData(opts.clone())));
}

/// What each load, store, locked operation and copy stands for, for the race screen
/// (`tso_engine::race::screen`, "Asked in the TSO run"): the program's access, with the
/// order the pass passed. Fences, evictions and a thread's end make none of their own:
/// what a drain writes to memory is stores already counted where they were made.
pub(super) fn register_program_accesses(n: &mut Natives) {
    for i in 0..abi::ACCESS_WIDTHS.len() {
        let (load, store, locked) = match abi::ACCESS_WIDTHS[i] / 8 {
            1 => of_width::<1>(),
            2 => of_width::<2>(),
            4 => of_width::<4>(),
            _ => of_width::<8>(),
        };
        n.set_program_accesses(abi::LOAD[i], load);
        n.set_program_accesses(abi::STORE[i], store);
        n.set_program_accesses(abi::STORE_LOCKED[i], store);
        // The weak compare-exchange is registered by the C11 runtime only.
        for name in [abi::RMW[i], abi::CMPXCHG[i], abi::CMPXCHG_WEAK[i]] {
            n.set_program_accesses(name, locked);
        }
    }
    for name in [abi::RMW_128, abi::CMPXCHG_128, abi::CMPXCHG_WEAK_128] {
        n.set_program_accesses(name, of_width::<16>().2);
    }
    n.set_program_accesses(
        abi::LOAD_BYTES,
        ranged::<1, { abi::ORDER_ARG_BYTES }, true, false>(),
    );
    n.set_program_accesses(
        abi::STORE_BYTES,
        ranged::<0, { abi::ORDER_ARG_BYTES }, false, true>(),
    );
    let plain = |accesses| tso_engine::ProgramAccesses {
        accesses,
        order_arg: None,
    };
    for name in [abi::MEMCPY, abi::MEMMOVE] {
        n.set_program_accesses(name, plain(copy_access));
    }
    n.set_program_accesses(abi::MEMSET, plain(set_access));
}

/// The load, the store and the locked operation (read-modify-write, compare-exchange)
/// of `BYTES` bytes.
fn of_width<const BYTES: u64>() -> (
    tso_engine::ProgramAccesses,
    tso_engine::ProgramAccesses,
    tso_engine::ProgramAccesses,
) {
    (
        fixed::<BYTES, { abi::ORDER_ARG_LOAD }, true, false>(),
        fixed::<BYTES, { abi::ORDER_ARG_STORE }, false, true>(),
        fixed::<BYTES, { abi::ORDER_ARG_LOCKED }, true, true>(),
    )
}

/// A native that accesses `BYTES` bytes at its first argument, in the order its
/// argument `ORDER` holds: the one index both the screen's reading of the program and
/// the access itself use.
fn fixed<const BYTES: u64, const ORDER: usize, const READ: bool, const WRITE: bool>(
) -> tso_engine::ProgramAccesses {
    tso_engine::ProgramAccesses {
        accesses: fixed_access::<BYTES, ORDER, READ, WRITE>,
        order_arg: Some(ORDER),
    }
}

fn fixed_access<const BYTES: u64, const ORDER: usize, const READ: bool, const WRITE: bool>(
    a: &[Val],
    out: &mut Vec<tso_engine::NativeAccess>,
) {
    out.push(access(a, 0, BYTES, (READ, WRITE), Some(ORDER)));
}

/// A native that accesses the bytes at its argument `AT`, as many as its third
/// argument says, in the order its argument `ORDER` holds (see [`fixed`]).
fn ranged<const AT: usize, const ORDER: usize, const READ: bool, const WRITE: bool>(
) -> tso_engine::ProgramAccesses {
    tso_engine::ProgramAccesses {
        accesses: ranged_access::<AT, ORDER, READ, WRITE>,
        order_arg: Some(ORDER),
    }
}

fn ranged_access<const AT: usize, const ORDER: usize, const READ: bool, const WRITE: bool>(
    a: &[Val],
    out: &mut Vec<tso_engine::NativeAccess>,
) {
    let len = arg(a, 2).unwrap_or_default();
    if len == 0 {
        return;
    }
    out.push(access(a, AT, len, (READ, WRITE), Some(ORDER)));
}

/// The access of `len` bytes at argument `at`, its order in argument `order` (plain
/// when absent or unknown).
fn access(
    a: &[Val],
    at: usize,
    len: u64,
    (read, write): (bool, bool),
    order: Option<usize>,
) -> tso_engine::NativeAccess {
    let order = order
        .and_then(|i| a.get(i))
        .and_then(|o| tso_engine::MemOrder::from_code(o.as_u64()))
        .unwrap_or(tso_engine::MemOrder::NotAtomic);
    tso_engine::NativeAccess {
        ptr: arg(a, at).unwrap_or_default(),
        len,
        read,
        write,
        order,
    }
}

fn copy_access(a: &[Val], out: &mut Vec<tso_engine::NativeAccess>) {
    let len = arg(a, 2).unwrap_or_default();
    if len == 0 {
        return;
    }
    out.push(access(a, 1, len, (true, false), None));
    out.push(access(a, 0, len, (false, true), None));
}

fn set_access(a: &[Val], out: &mut Vec<tso_engine::NativeAccess>) {
    let len = arg(a, 2).unwrap_or_default();
    if len == 0 {
        return;
    }
    out.push(access(a, 0, len, (false, true), None));
}

/// A native that drains the calling thread's buffer and returns 0: `mfence`, its
/// library-call form, a thread's end, and the fence other natives ask for.
fn draining(
    opts: &RuntimeOptions,
) -> impl Fn(&mut NativeCx<'_>, &[Val]) -> Result<NativeResult, Failure> + Send + Sync + 'static {
    let o = opts.clone();
    move |cx, _| {
        fence(cx, &o)?;
        Ok(NativeResult::Return(Val::Int(0)))
    }
}

/// A native that drops the buffered entries for the object its first argument points
/// into, before that memory is released, and returns 0: the pass's evict call and the
/// hook natives run before killing stack objects.
fn evicting(
    opts: &RuntimeOptions,
) -> impl Fn(&mut NativeCx<'_>, &[Val]) -> Result<NativeResult, Failure> + Send + Sync + 'static {
    let o = opts.clone();
    move |cx, a| {
        evict(cx, &o, arg(a, 0)?)?;
        Ok(NativeResult::Return(Val::Int(0)))
    }
}

/// Library functions (string functions and the like, which the pass calls without
/// fences: `instrument::calls::UNFENCED_LIBRARY`) load and store shared memory
/// through the store buffers, like the program's own accesses.
struct BufferedData(RuntimeOptions);

impl DataView for BufferedData {
    fn read(&self, cx: &mut NativeCx<'_>, ptr: u64, len: u64) -> Result<Fragment, Failure> {
        Ok(fragment(&load(cx, &self.0, ptr, checked_len(len)?)?))
    }
    fn write(&self, cx: &mut NativeCx<'_>, ptr: u64, frag: &Fragment) -> Result<(), Failure> {
        checked_len(frag.data.len() as u64)?;
        store(cx, &self.0, ptr, payload(frag.clone()))
    }
}

pub(super) fn checked_len(len: u64) -> Result<u32, Failure> {
    u32::try_from(len).map_err(|_| {
        Failure::new(
            ErrorKind::OutOfBounds,
            format!("memory operation of {len} bytes"),
        )
    })
}

/// A loaded payload of up to 16 bytes as a value: each 64-bit lane it holds whole
/// keeps the provenance of a pointer starting there (`Val::with_ptr_lanes`).
pub(super) fn payload_to_val(p: &Payload) -> Val {
    if p.data.len() <= 8 {
        let v = p.to_int();
        if p.data.len() == 8 && p.is_pointer_at(0) {
            return Val::Ptr(v);
        }
        return Val::Int(v as u128);
    }
    let lanes = p.is_pointer_at(0) as u8 | ((p.data.len() >= 16 && p.is_pointer_at(8)) as u8) << 1;
    Val::with_ptr_lanes(p.to_u128(), lanes)
}

/// A stored value of up to 16 bytes as buffer bytes, a pointer in each 64-bit lane
/// with its provenance; `undef` is its shadow (the engine's definedness bits, see
/// `tso_engine::definedness`), carried byte for byte.
pub(super) fn val_to_payload(v: &Val, undef: Option<&Val>, len: u32) -> Payload {
    let mut p = if len <= 8 {
        Payload::from_int(v.as_u64(), len)
    } else {
        Payload::from_u128(v.bits(), len)
    };
    let lanes = v.ptr_lanes();
    for i in 0..2 {
        if lanes >> i & 1 != 0 && len >= 8 * (i + 1) {
            p.ptr_offsets.push(8 * i);
        }
    }
    if let Some(u) = undef {
        p.undef = undef_bytes(u, len);
    }
    p
}

/// The operation of a `__tso_rmw_*` call's code.
pub(super) fn rmw_op(code: u32) -> Result<RmwOp, Failure> {
    RmwOp::from_code(code).ok_or_else(|| {
        Failure::unsupported(format!(
            "unsupported: read-modify-write operation code {code}"
        ))
    })
}

/// What a read-modify-write of `bits` bits writes over `old` (`None`: an operation
/// the width has not).
pub(super) fn rmw_written(
    op: RmwOp,
    bits: u32,
    old: &Payload,
    operand: &Val,
    operand_undef: Option<&Val>,
) -> Option<Payload> {
    let new = op.apply(bits, old.to_int(), operand.as_u64())?;
    let mut payload = Payload::from_int(new, bits / 8);
    if op == RmwOp::Xchg && matches!(operand, Val::Ptr(_)) && bits == 64 {
        payload.ptr_offsets.push(0);
    }
    payload.undef = rmw_undef(op, operand_undef, old, bits / 8);
    Some(payload)
}

/// What a 16-byte read-modify-write writes over `old`.
pub(super) fn rmw_written_128(
    op: RmwOp,
    old: &Payload,
    operand: &Val,
    operand_undef: Option<&Val>,
) -> Option<Payload> {
    let new = op.apply_128(old.to_u128(), operand.bits())?;
    let mut payload = if op == RmwOp::Xchg {
        // An exchange stores the operand whole, pointers included.
        val_to_payload(operand, None, 16)
    } else {
        Payload::from_u128(new, 16)
    };
    payload.undef = rmw_undef(op, operand_undef, old, 16);
    Some(payload)
}

/// The undefined bits of what a locked RMW of `len` bytes writes: exchanged bits keep
/// their definedness; any other operation is wholly undefined if an input bit was.
fn rmw_undef(op: RmwOp, operand_undef: Option<&Val>, old: &Payload, len: u32) -> Vec<u8> {
    match (op, operand_undef) {
        (RmwOp::Xchg, Some(u)) => undef_bytes(u, len),
        (RmwOp::Xchg, None) => Vec::new(),
        (_, Some(_)) => vec![0xff; len as usize],
        (_, None) if !old.undef.is_empty() => vec![0xff; len as usize],
        (_, None) => Vec::new(),
    }
}

/// The mask bytes of a scalar shadow of `len` bytes; empty when all are defined.
fn undef_bytes(shadow: &Val, len: u32) -> Vec<u8> {
    let bits = tso_engine::smear(shadow);
    let bytes = bits.to_le_bytes()[..(len as usize).min(16)].to_vec();
    if bytes.iter().all(|&b| b == 0) {
        Vec::new()
    } else {
        bytes
    }
}

/// The value a store, exchange or compare-exchange writes may hold undefined bits: the
/// memory model carries them (addresses and the expected value must be defined).
pub(super) fn carry_undefined_values(n: &mut Natives) {
    for i in 0..abi::ACCESS_WIDTHS.len() {
        n.carry_undefined(abi::STORE[i], 1 << 1);
        n.carry_undefined(abi::STORE_LOCKED[i], 1 << 1);
        n.carry_undefined(abi::RMW[i], 1 << 1);
        n.carry_undefined(abi::CMPXCHG[i], 1 << 2);
        // Registered by the C11 runtime only (a no-op for the others).
        n.carry_undefined(abi::CMPXCHG_WEAK[i], 1 << 2);
    }
    n.carry_undefined(abi::CMPXCHG_128, 1 << 2);
    n.carry_undefined(abi::CMPXCHG_WEAK_128, 1 << 2);
    n.carry_undefined(abi::RMW_128, 1 << 1);
}

/// What a load returns: the value, its undefined bits as the call's result shadow.
#[inline]
pub(super) fn loaded(cx: &mut NativeCx<'_>, p: &Payload, from: u64) -> Val {
    set_result_undef(cx, p, from);
    payload_to_val(p)
}

/// What a weak compare-exchange returns (`{iN, i1}`): the value read, its undefined
/// bits as the first lane's shadow, and whether it stored.
pub(super) fn loaded_with_flag(cx: &mut NativeCx<'_>, p: &Payload, from: u64, flag: bool) -> Val {
    let bits = undefined_bits(p);
    if bits != 0 {
        let shadow = Val::Agg(std::sync::Arc::from([Val::Int(bits), Val::Int(0)]));
        cx.set_result_undefined(shadow, from);
    }
    Val::Agg(std::sync::Arc::from([
        payload_to_val(p),
        Val::Int(u128::from(flag)),
    ]))
}

/// A loaded payload's undefined bits become the call's result shadow.
fn set_result_undef(cx: &mut NativeCx<'_>, p: &Payload, from: u64) {
    let bits = undefined_bits(p);
    if bits != 0 {
        cx.set_result_undefined(Val::Int(bits), from);
    }
}

/// A payload's undefined bits (of its first 16 bytes) as one integer.
fn undefined_bits(p: &Payload) -> u128 {
    if p.undef.is_empty() {
        return 0;
    }
    let mut buf = [0u8; 16];
    let n = p.undef.len().min(16);
    buf[..n].copy_from_slice(&p.undef[..n]);
    u128::from_le_bytes(buf)
}

fn range_of(p: u64, len: u32) -> Range {
    let (obj, off) = ptr_parts(p);
    Range::new(obj, off, len)
}

/// Run `f` on the buffers with the engine as memory and chooser. The buffers are
/// taken out of the state meanwhile and put back (or dropped when all empty, so an
/// empty machine is always the same state).
fn with_buffers<R>(
    cx: &mut NativeCx<'_>,
    opts: &RuntimeOptions,
    f: impl FnOnce(&mut TsoState, &Env<'_, '_>) -> BufResult<R>,
) -> Result<R, Failure> {
    let original = cx.state.ext.take();
    let mut ts = match original.as_ref() {
        Some(b) => match b.as_any().downcast_ref::<TsoState>() {
            Some(t) => t.clone(),
            None => TsoState::new(opts.reference_machine),
        },
        None => TsoState::new(opts.reference_machine),
    };
    let before = cx.tracing().then(|| ts.clone());
    let r = {
        let env = Env {
            cx: RefCell::new(&mut *cx),
        };
        if opts.reference_machine {
            reference_flushes(&mut ts, &env).and_then(|_| f(&mut ts, &env))
        } else {
            f(&mut ts, &env)
        }
    };
    if let Some(before) = before {
        note_buffers(cx, &before, &ts);
    }
    if cx.footprint_recording() {
        let old = original
            .as_ref()
            .and_then(|b| b.as_any().downcast_ref::<TsoState>());
        footprint::report(cx, old, &ts);
    }
    if ts.any_nonempty() {
        cx.state.ext = Some(Box::new(ts));
    }
    r.map_err(|e| buffer_failure(cx.program, e))
}

/// The reference machine: before any memory operation, any buffer may write its oldest
/// entry, any number of times, in any order (`ReferenceBuffers::flush_any`).
fn reference_flushes(ts: &mut TsoState, env: &Env<'_, '_>) -> BufResult<()> {
    let Buffers::Reference(b) = &mut ts.buffers else {
        return Ok(());
    };
    b.flush_any(&mut Mem(env), &mut Chooser(env))
}

fn buffer_failure(program: &Program, e: BufferError<Failure>) -> Failure {
    match e {
        BufferError::Memory(f) => f,
        BufferError::StoreToReleasedMemory { thread, origin } => Failure::new(
            ErrorKind::StoreToReleasedMemory,
            format!(
                "memory is released while thread {thread} may still have a store to it in its store buffer (from {}): a data race between free/return and that store",
                location(program, origin)
            ),
        ),
        other => Failure::unsupported(format!("unsupported: {other}")),
    }
}

/// `file:line` of a source location id, as the trace's notes name a store's origin.
pub(super) fn location(program: &Program, origin: u32) -> String {
    match program.locations.get(origin as usize) {
        Some(l) if origin != u32::MAX => format!(
            "{}:{}",
            l.file.rsplit('/').next().unwrap_or(&l.file),
            l.line
        ),
        _ => "unknown location".into(),
    }
}

/// Under tracing: show the buffers that changed.
fn note_buffers(cx: &mut NativeCx<'_>, before: &TsoState, after: &TsoState) {
    let mut threads = before.threads();
    threads.extend(after.threads());
    threads.sort_unstable();
    threads.dedup();
    let me = cx.tid;
    let show = InSource {
        program: cx.program,
        st: &*cx.state,
    };
    let program = cx.program;
    let loc = |o: u32| location(program, o);
    let mut flushes = Vec::new();
    let mut buffers = Vec::new();
    for t in threads {
        let (b, a) = (
            before.describe(t, &show, &loc),
            after.describe(t, &show, &loc),
        );
        if a == b {
            continue;
        }
        if t != me {
            // Another thread's entries this operation wrote out (it may have had to,
            // to explain what a load saw) or marked as already in memory.
            flushes.extend(flush_lines(
                t,
                &before.items(t, &show, &loc),
                &after.items(t, &show, &loc),
            ));
        }
        buffers.push(format!("T{t} buffer: {a}"));
    }
    for line in flushes.into_iter().chain(buffers) {
        cx.note(move |_, _| line);
    }
}

/// Buffer notes in the program's own terms: names and declared types from its debug info.
struct InSource<'a> {
    program: &'a Program,
    st: &'a State,
}

impl ShowMemory for InSource<'_> {
    fn name(&self, at: u64) -> String {
        describe_pointer(self.program, self.st, at)
    }
    fn pointer(&self, p: u64) -> String {
        describe_address(self.program, self.st, p)
    }
    fn scalar(&self, at: u64, value: u64, bytes: u32) -> String {
        describe_scalar_at(self.program, self.st, at, value, bytes)
    }
}

/// `flush: T2 writes x=1 (sb.c:12) to memory` for each entry that left T2's buffer,
/// `flush: T2's y=1 (sb.c:13) now counts as written` for each entry newly marked flushed.
fn flush_lines(
    t: ThreadId,
    before: &[(String, String, bool)],
    after: &[(String, String, bool)],
) -> Vec<String> {
    let mut lines = Vec::new();
    let mut j = 0;
    for (item, origin, flushed) in before {
        match after.get(j) {
            Some((a_item, a_origin, a_flushed)) if a_item == item && a_origin == origin => {
                if *a_flushed && !flushed {
                    lines.push(format!(
                        "flush: T{t}'s {item} ({origin}) now counts as written"
                    ));
                }
                j += 1;
            }
            _ => {
                if *flushed {
                    lines.push(format!("flush: T{t}'s {item} reaches memory"));
                } else {
                    lines.push(format!("flush: T{t} writes {item} ({origin}) to memory"));
                }
            }
        }
    }
    lines
}

/// The "+d" rule: no other thread can reach this memory — the object is not shared,
/// or no other thread is running at all (finished threads have drained their buffers,
/// and thread creation is fenced).
fn unobserved(cx: &NativeCx<'_>, p: u64) -> bool {
    !cx.is_shared(p) || cx.state.running_threads() == 1
}

fn load(
    cx: &mut NativeCx<'_>,
    opts: &RuntimeOptions,
    p: u64,
    len: u32,
) -> Result<Payload, Failure> {
    cx.check(p, len as u64, Access::Read)?;
    let bypass = opts.sequential || (opts.dynamic_bypass && unobserved(cx, p));
    let tid = cx.tid;
    let range = range_of(p, len);
    let observing = opts
        .observations
        .as_ref()
        .filter(|_| cx.tracing() && !bypass);
    let passed = observing.map(|log| observe::before_load(cx, log, range));
    if !bypass {
        // What the load may read depends on every buffer's entries for the object.
        cx.footprint_object(range.addr.object, false);
    }
    let v = with_buffers(cx, opts, |ts, env| match &mut ts.buffers {
        Buffers::Lazy(b) => {
            if bypass {
                b.load_unshared(&mut Mem(env), &mut Chooser(env), tid, range)
            } else {
                b.load(&mut Mem(env), &mut Chooser(env), tid, range)
            }
        }
        Buffers::Reference(b) => b.load(&Mem(env), tid, range),
    })?;
    if let (Some(log), Some(passed)) = (observing, passed) {
        // In the type declared where it was read, as the trace shows it.
        let shown = match payload_to_val(&v) {
            Val::Ptr(q) => describe_address(cx.program, cx.state, q),
            other => describe_scalar_at(cx.program, cx.state, p, other.as_u64(), len),
        };
        observe::after_load(cx, log, range, shown, passed);
    }
    if cx.tracing() && len <= 8 {
        let shown = payload_to_val(&v);
        cx.note(move |st, program| match shown {
            Val::Ptr(p) => format!("→ {}", describe_address(program, st, p)),
            other => format!(
                "→ {}",
                describe_scalar_at(program, st, p, other.as_u64(), len)
            ),
        });
    }
    Ok(v)
}

fn store(cx: &mut NativeCx<'_>, opts: &RuntimeOptions, p: u64, v: Payload) -> Result<(), Failure> {
    cx.check(p, v.len() as u64, Access::Write)?;
    let shared = cx.is_shared(p);
    if shared {
        // The stored pointers become reachable by other threads once this store is
        // visible; marking them now is what makes the "+d" bypass sound (§3.4 of the
        // delayed-flush paper, see ARCHITECTURE.md, "Semantics").
        let ptrs: Vec<u64> = v
            .ptr_offsets
            .iter()
            .map(|&o| {
                u64::from_le_bytes(
                    v.data[o as usize..o as usize + 8]
                        .try_into()
                        .unwrap_or([0; 8]),
                )
            })
            .collect();
        for q in ptrs {
            cx.share(q);
        }
    }
    let bypass = opts.sequential || (opts.dynamic_bypass && unobserved(cx, p));
    let (tid, origin, bound) = (
        cx.tid,
        cx.user_location().unwrap_or(u32::MAX),
        opts.sb_bound,
    );
    let range = range_of(p, v.len());
    with_buffers(cx, opts, |ts, env| match &mut ts.buffers {
        Buffers::Lazy(b) => {
            if bypass {
                b.store_unshared(
                    &mut Mem(env),
                    &mut Chooser(env),
                    tid,
                    range,
                    v,
                    origin,
                    bound,
                )
            } else {
                b.store(
                    &mut Mem(env),
                    &mut Chooser(env),
                    tid,
                    range,
                    v,
                    origin,
                    bound,
                )
            }
        }
        Buffers::Reference(b) => {
            if bypass {
                b.store_unshared(&mut Mem(env), tid, range, v, origin, bound)
            } else {
                b.store(&mut Mem(env), tid, range, v, origin, bound)
            }
        }
    })
}

fn locked(
    cx: &mut NativeCx<'_>,
    opts: &RuntimeOptions,
    p: u64,
    len: u32,
    update: impl FnOnce(&Payload) -> Option<Payload>,
) -> Result<Payload, Failure> {
    cx.check(p, len as u64, Access::Write)?;
    let tid = cx.tid;
    let range = range_of(p, len);
    cx.footprint_object(range.addr.object, true);
    with_buffers(cx, opts, |ts, env| match &mut ts.buffers {
        Buffers::Lazy(b) => b.locked_rmw(&mut Mem(env), &mut Chooser(env), tid, range, update),
        Buffers::Reference(b) => b.locked_rmw(&mut Mem(env), tid, range, update),
    })
}

fn fence(cx: &mut NativeCx<'_>, opts: &RuntimeOptions) -> Result<(), Failure> {
    let tid = cx.tid;
    if !opts.reference_machine && TsoState::of(cx.state).is_none_or(|t| t.is_empty(tid)) {
        return Ok(());
    }
    with_buffers(cx, opts, |ts, env| match &mut ts.buffers {
        Buffers::Lazy(b) => b.fence(&mut Mem(env), &mut Chooser(env), tid),
        Buffers::Reference(b) => b.drain(&mut Mem(env), tid),
    })
}

fn evict(cx: &mut NativeCx<'_>, opts: &RuntimeOptions, p: u64) -> Result<(), Failure> {
    let (obj, _) = ptr_parts(p);
    // free(NULL), already released or unknown memory: nothing is buffered for it.
    if p == 0 || cx.state.memory.get(obj).is_none_or(|o| o.freed) {
        return Ok(());
    }
    // Whether another thread still buffers a store to it is read even when no
    // buffer holds anything now.
    if cx.is_shared(p) {
        cx.footprint_object(obj, false);
    }
    if TsoState::of(cx.state).is_none() {
        return Ok(());
    }
    let tid = cx.tid;
    with_buffers(cx, opts, |ts, _env| match &mut ts.buffers {
        Buffers::Lazy(b) => b.evict(tid, obj),
        Buffers::Reference(b) => b.evict(tid, obj),
    })
}

/// A fence is visible when it writes something: the thread's own buffer is non-empty
/// (or, for the reference machine, when any buffer may flush).
fn fence_visible(st: &State, tid: ThreadId, _: &[Val]) -> bool {
    TsoState::of(st).is_some_and(|t| match &t.buffers {
        Buffers::Lazy(_) => !t.is_empty(tid),
        Buffers::Reference(_) => t.any_nonempty(),
    })
}

/// The calling thread's buffer holds entries (what a thread's end drains).
fn own_buffer_nonempty(st: &State, tid: ThreadId, _: &[Val]) -> bool {
    TsoState::of(st).is_some_and(|t| !t.is_empty(tid))
}

/// A locked operation is visible when it touches shared memory or drains a buffer.
fn locked_visible(st: &State, tid: ThreadId, a: &[Val]) -> bool {
    st.memory.is_shared(arg(a, 0).unwrap_or_default()) || fence_visible(st, tid, a)
}

fn name(program: &Program, st: &State, p: u64) -> String {
    describe_pointer(program, st, p)
}

pub(super) fn describe_load(program: &Program, st: &State, a: &[Val]) -> String {
    format!("load {}", name(program, st, arg(a, 0).unwrap_or_default()))
}

/// Argument `i`, an integer of `BYTES` bytes for the memory at argument 0, in the type
/// declared there (a pointer as its address).
fn scalar_arg<const BYTES: u32>(program: &Program, st: &State, a: &[Val], i: usize) -> String {
    match a.get(i) {
        Some(Val::Ptr(p)) => describe_address(program, st, *p),
        Some(v) => describe_scalar_at(
            program,
            st,
            arg(a, 0).unwrap_or_default(),
            v.as_u64(),
            BYTES,
        ),
        None => String::new(),
    }
}

/// How a native's call is shown in traces.
pub(super) type Describe = fn(&Program, &State, &[Val]) -> String;

/// The describer of `__tso_store_N`, `__tso_rmw_N` or `__tso_cmpxchg_N` for an access of
/// `bits` bits (one of `abi::ACCESS_WIDTHS`).
pub(super) fn by_width(bits: u32, f: [Describe; 4]) -> Describe {
    match bits {
        8 => f[0],
        16 => f[1],
        32 => f[2],
        _ => f[3],
    }
}

pub(super) fn describe_store<const BYTES: u32>(program: &Program, st: &State, a: &[Val]) -> String {
    format!(
        "store {} := {}",
        name(program, st, arg(a, 0).unwrap_or_default()),
        scalar_arg::<BYTES>(program, st, a, 1)
    )
}

fn describe_store_locked<const BYTES: u32>(program: &Program, st: &State, a: &[Val]) -> String {
    format!("{}, then mfence", describe_store::<BYTES>(program, st, a))
}

pub(super) fn describe_rmw<const BYTES: u32>(program: &Program, st: &State, a: &[Val]) -> String {
    let op = rmw_name(a);
    format!(
        "locked {op} {} {}",
        name(program, st, arg(a, 0).unwrap_or_default()),
        scalar_arg::<BYTES>(program, st, a, 1)
    )
}

pub(super) fn describe_cmpxchg<const BYTES: u32>(
    program: &Program,
    st: &State,
    a: &[Val],
) -> String {
    format!(
        "locked cmpxchg {} (expect {}, new {})",
        name(program, st, arg(a, 0).unwrap_or_default()),
        scalar_arg::<BYTES>(program, st, a, 1),
        scalar_arg::<BYTES>(program, st, a, 2)
    )
}

pub(super) fn describe_cmpxchg_weak<const BYTES: u32>(
    program: &Program,
    st: &State,
    a: &[Val],
) -> String {
    format!(
        "weak cmpxchg {} (expect {}, new {})",
        name(program, st, arg(a, 0).unwrap_or_default()),
        scalar_arg::<BYTES>(program, st, a, 1),
        scalar_arg::<BYTES>(program, st, a, 2)
    )
}

pub(super) fn describe_cmpxchg_weak_128(program: &Program, st: &State, a: &[Val]) -> String {
    let hex = |i: usize| format!("{:#x}", a.get(i).map(Val::bits).unwrap_or_default());
    format!(
        "weak cmpxchg16b {} (expect {}, new {})",
        name(program, st, arg(a, 0).unwrap_or_default()),
        hex(1),
        hex(2)
    )
}

pub(super) fn describe_cmpxchg_128(program: &Program, st: &State, a: &[Val]) -> String {
    let hex = |i: usize| format!("{:#x}", a.get(i).map(Val::bits).unwrap_or_default());
    format!(
        "locked cmpxchg16b {} (expect {}, new {})",
        name(program, st, arg(a, 0).unwrap_or_default()),
        hex(1),
        hex(2)
    )
}

/// The operation of a `__tso_rmw_*` call (argument 2), as `add`.
fn rmw_name(a: &[Val]) -> String {
    RmwOp::from_code(arg(a, 2).unwrap_or_default() as u32)
        .map(|o| format!("{o:?}").to_lowercase())
        .unwrap_or_else(|| "rmw".into())
}

pub(super) fn describe_rmw_128(program: &Program, st: &State, a: &[Val]) -> String {
    let op = rmw_name(a);
    format!(
        "locked {op} {} {:#x}",
        name(program, st, arg(a, 0).unwrap_or_default()),
        a.get(1).map(Val::bits).unwrap_or_default()
    )
}

pub(super) fn describe_copy(program: &Program, st: &State, a: &[Val]) -> String {
    format!(
        "copy {} bytes {} ← {}",
        arg(a, 2).unwrap_or_default(),
        name(program, st, arg(a, 0).unwrap_or_default()),
        name(program, st, arg(a, 1).unwrap_or_default())
    )
}

pub(super) fn describe_evict(program: &Program, st: &State, a: &[Val]) -> String {
    format!(
        "release {}",
        name(program, st, arg(a, 0).unwrap_or_default())
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tso_engine::{MemOrder, NativeAccess, ProgramAccesses};

    /// The accesses `shape` reports for a call whose order argument holds `order`,
    /// every other argument 0x1000 (a pointer) or 4 (a length).
    fn made(shape: ProgramAccesses, order: MemOrder) -> Vec<NativeAccess> {
        let at = shape.order_arg.expect("an order argument");
        let mut args = vec![Val::Int(0x1000), Val::Int(0x1000), Val::Int(4), Val::Int(0)];
        args[at] = Val::Int(order.code() as u128);
        let mut out = Vec::new();
        (shape.accesses)(&args, &mut out);
        out
    }

    /// The screen reads the order from the argument `order_arg` names, the access
    /// reports it from the argument it reads: the two must be the same one.
    #[test]
    fn each_access_reports_the_order_its_order_argument_holds() {
        let (load, store, locked) = of_width::<4>();
        let bytes_load = ranged::<1, { abi::ORDER_ARG_BYTES }, true, false>();
        let bytes_store = ranged::<0, { abi::ORDER_ARG_BYTES }, false, true>();
        for (shape, read, write) in [
            (load, true, false),
            (store, false, true),
            (locked, true, true),
            (bytes_load, true, false),
            (bytes_store, false, true),
        ] {
            for order in [MemOrder::Acquire, MemOrder::SeqCst] {
                let out = made(shape, order);
                assert_eq!(out.len(), 1);
                assert_eq!(out[0].order, order);
                assert_eq!((out[0].read, out[0].write), (read, write));
                assert_eq!(out[0].len, 4);
            }
        }
    }
}
