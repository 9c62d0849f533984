//! The `__tso_*` natives under `--memory-model c11`: the view machine of
//! [`crate::c11`] as per-state data ([`C11State`]), with the engine as its memory and
//! chooser.
//!
//! - Loads, stores, RMWs and fences follow the machine with the order the pass passed
//!   (the pass keeps every thread fence, `InstrumentOptions::keep_orders`). A load
//!   asks the engine's chooser among the messages it may read; an RMW among the
//!   messages it may read and still be atomic (RC11 allows a stale one); a seq_cst
//!   event among its places in the SC order. Non-atomic accesses choose as relaxed
//!   ones do and synchronise nothing (the rule and why it costs race-free programs
//!   nothing: the module doc of [`crate::c11`]).
//! - A weak compare-exchange (`__tso_cmpxchg_weak_N`, which the pass emits for
//!   `cmpxchg weak` when it keeps orders) may also fail where the comparison
//!   succeeds ([`C11Memory::compare_exchange_weak`]); it returns the value read and
//!   whether it stored, and the trace says when it failed spuriously. x86 never
//!   does: under TSO the pass makes it `__tso_cmpxchg_N`.
//! - There is no "+d" bypass: a location of an object not yet shared still keeps its
//!   history, which another thread may read once the object is published without
//!   synchronisation (as on ARM).
//! - The library's synchronisation (mutexes, condition variables, thread creation and
//!   join…) reaches the machine through the engine's sync hook (`SyncEvent`): a
//!   release stores the thread's view at the primitive, an acquire joins it. The
//!   fences the pass puts around library calls (`__tso_call_fence`) are x86's locked
//!   instructions and do nothing here: C11 gives a library call no ordering of its own.
//! - Memory written behind the machine's back (a primitive's own bytes, a thread
//!   handle) is seen on the next access: a location whose newest message is not what
//!   memory holds starts again from memory.
//! - Released memory (`__tso_evict`, the evict hook, or found freed) takes its
//!   locations with it.
//! - The history bound (`--history-bound`): a step that drops a message some thread
//!   could still read ends the path as a limit (inconclusive, never a pass).
//! - Race detection (`--races warn|deny`) runs in this search: each native records the
//!   program's access it stands for (`NativeCx::race_access`; a library function's
//!   accesses through the data view are the engine's to record), then hands the
//!   machine's log of the step ([`HistoryEvent`]) to the race data, which keeps a
//!   clock per message: a load synchronises with the write it read, stale or not.
//! - Under tracing (the counterexample's replay) a read's note names the store it
//!   read when another thread's, and for a stale read the newest store its thread's
//!   view was older than: who wrote what is followed from the machine's log in
//!   [`super::c11_writers`], kept beside the machine only while tracing.
//! - Every call that touches the machine is dependent on every other transition for
//!   the partial-order reduction (collection and the SC order's renumbering touch all
//!   locations), and the state names threads in views: it cannot be permuted, so
//!   thread symmetry does not apply to states holding it.

use super::c11_writers::{ReadFrom, Writer, Writers};
use super::env::{fragment, payload, Chooser, Env, Mem};
use super::natives as N;
use crate::abi;
use crate::buffer::{Payload, Range, SharedMemory};
use crate::c11::{C11Error, C11Memory, HistoryEvent, LocKey, Order};
use std::any::Any;
use std::cell::RefCell;
use tso_engine::{
    arg, arg_val, ptr_parts, Access, DataView, ErrorKind, ExtState, Failure, Fragment, MemOrder,
    MessageEvent, NativeCx, NativeResult, Natives, State, SyncEvent, Val, Visibility,
};

/// How the C11 runtime runs.
#[derive(Clone, Debug)]
pub struct C11Options {
    /// Messages kept per location; 0 = unbounded.
    pub history_bound: u32,
}

/// The view machine of one state.
#[derive(Clone, Debug)]
pub struct C11State {
    pub memory: C11Memory,
}

impl C11State {
    pub fn of(st: &State) -> Option<&C11State> {
        st.ext_ref::<C11State>()
            .or_else(|| st.ext_ref::<TracedC11State>().map(|t| &t.state))
    }
}

/// The machine of a state while a path is replayed with tracing on, with who wrote
/// each message (the trace's read notes). It serialises as the machine alone, and
/// exploration never makes one: the states it clones and stores stay [`C11State`].
#[derive(Clone, Debug)]
struct TracedC11State {
    state: C11State,
    writers: Box<Writers>,
}

impl ExtState for TracedC11State {
    fn clone_box(&self) -> Box<dyn ExtState> {
        Box::new(self.clone())
    }

    fn for_each_pointer(&self, f: &mut dyn FnMut(u64)) {
        self.state.for_each_pointer(f);
    }

    fn serialize(&self, map: &mut dyn FnMut(u64) -> u64, out: &mut Vec<u8>) {
        self.state.serialize(map, out);
    }

    fn decode(&self, bytes: &[u8], unmap: &mut dyn FnMut(u64) -> u64) -> Option<Box<dyn ExtState>> {
        self.state.decode(bytes, unmap)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

impl ExtState for C11State {
    fn clone_box(&self) -> Box<dyn ExtState> {
        Box::new(self.clone())
    }

    fn for_each_pointer(&self, f: &mut dyn FnMut(u64)) {
        self.memory.for_each_pointer(f);
    }

    fn serialize(&self, map: &mut dyn FnMut(u64) -> u64, out: &mut Vec<u8>) {
        self.memory.serialize_mapped(map, out);
    }

    fn decode(&self, bytes: &[u8], unmap: &mut dyn FnMut(u64) -> u64) -> Option<Box<dyn ExtState>> {
        let memory = C11Memory::decode(bytes, self.memory.history_bound(), unmap)?;
        Some(Box::new(C11State { memory }))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// Register the `__tso_*` natives with C11 semantics and the hooks.
pub fn register(natives: &mut Natives, opts: &C11Options) {
    natives.without_data_accesses(|n| register_natives(n, opts));
}

fn register_natives(n: &mut Natives, opts: &C11Options) {
    for (i, &bits) in abi::ACCESS_WIDTHS.iter().enumerate() {
        let bytes = bits / 8;
        let o = opts.clone();
        n.add_described(
            abi::LOAD[i],
            Visibility::IfShared(0),
            N::describe_load,
            move |cx, a| {
                let (p, order) = (arg(a, 0)?, order_arg(a, abi::ORDER_ARG_LOAD)?);
                let v = load(cx, &o, p, bytes, order)?;
                Ok(NativeResult::Return(N::loaded(cx, &v, p)))
            },
        );
        let o = opts.clone();
        let describe = N::by_width(
            bits,
            [
                N::describe_store::<1>,
                N::describe_store::<2>,
                N::describe_store::<4>,
                N::describe_store::<8>,
            ],
        );
        n.add_described(
            abi::STORE[i],
            Visibility::IfShared(0),
            describe,
            move |cx, a| {
                let (p, order) = (arg(a, 0)?, order_arg(a, abi::ORDER_ARG_STORE)?);
                let v = arg_val(a, 1)?;
                let payload = N::val_to_payload(&v, cx.arg_undefined(1), bytes);
                store(cx, &o, p, payload, order)?;
                Ok(NativeResult::Return(Val::Int(0)))
            },
        );
        let o = opts.clone();
        let describe = N::by_width(
            bits,
            [
                N::describe_rmw::<1>,
                N::describe_rmw::<2>,
                N::describe_rmw::<4>,
                N::describe_rmw::<8>,
            ],
        );
        n.add_described(
            abi::RMW[i],
            Visibility::IfShared(0),
            describe,
            move |cx, a| {
                let (p, operand, code) = (arg(a, 0)?, arg_val(a, 1)?, arg(a, 2)? as u32);
                let order = order_arg(a, abi::ORDER_ARG_LOCKED)?;
                let op = N::rmw_op(code)?;
                let operand_undef = cx.arg_undefined(1).cloned();
                let old = rmw(cx, &o, p, bytes, (order, order), &|old| {
                    N::rmw_written(op, bits, old, &operand, operand_undef.as_ref())
                })?;
                Ok(NativeResult::Return(N::loaded(cx, &old, p)))
            },
        );
        let describe = |strength| match strength {
            Strength::Strong => N::by_width(
                bits,
                [
                    N::describe_cmpxchg::<1>,
                    N::describe_cmpxchg::<2>,
                    N::describe_cmpxchg::<4>,
                    N::describe_cmpxchg::<8>,
                ],
            ),
            Strength::Weak => N::by_width(
                bits,
                [
                    N::describe_cmpxchg_weak::<1>,
                    N::describe_cmpxchg_weak::<2>,
                    N::describe_cmpxchg_weak::<4>,
                    N::describe_cmpxchg_weak::<8>,
                ],
            ),
        };
        for (name, strength) in [
            (abi::CMPXCHG[i], Strength::Strong),
            (abi::CMPXCHG_WEAK[i], Strength::Weak),
        ] {
            add_cmpxchg(n, opts, name, describe(strength), bytes, strength);
        }
    }
    add_cmpxchg(
        n,
        opts,
        abi::CMPXCHG_128,
        N::describe_cmpxchg_128,
        16,
        Strength::Strong,
    );
    add_cmpxchg(
        n,
        opts,
        abi::CMPXCHG_WEAK_128,
        N::describe_cmpxchg_weak_128,
        16,
        Strength::Weak,
    );
    let o = opts.clone();
    n.add_described(
        abi::RMW_128,
        Visibility::IfShared(0),
        N::describe_rmw_128,
        move |cx, a| {
            let (p, operand, code) = (arg(a, 0)?, arg_val(a, 1)?, arg(a, 2)? as u32);
            let order = order_arg(a, abi::ORDER_ARG_LOCKED)?;
            let op = N::rmw_op(code)?;
            let operand_undef = cx.arg_undefined(1).cloned();
            let old = rmw(cx, &o, p, 16, (order, order), &|old| {
                N::rmw_written_128(op, old, &operand, operand_undef.as_ref())
            })?;
            Ok(NativeResult::Return(N::loaded(cx, &old, p)))
        },
    );
    let o = opts.clone();
    n.add_described(
        abi::LOAD_BYTES,
        Visibility::IfShared(1),
        N::describe_copy,
        move |cx, a| {
            let (dst, src, len) = (arg(a, 0)?, arg(a, 1)?, arg(a, 2)?);
            let order = order_arg(a, abi::ORDER_ARG_BYTES)?;
            let v = load(cx, &o, src, N::checked_len(len)?, order)?;
            cx.write_fragment(dst, &fragment(&v))?;
            Ok(NativeResult::Return(Val::Int(0)))
        },
    );
    let o = opts.clone();
    n.add_described(
        abi::STORE_BYTES,
        Visibility::IfShared(0),
        N::describe_copy,
        move |cx, a| {
            let (dst, src, len) = (arg(a, 0)?, arg(a, 1)?, arg(a, 2)?);
            let order = order_arg(a, abi::ORDER_ARG_BYTES)?;
            let f = cx.read_fragment(src, len)?;
            store(cx, &o, dst, payload(f), order)?;
            Ok(NativeResult::Return(Val::Int(0)))
        },
    );
    for name in [abi::MEMCPY, abi::MEMMOVE] {
        let o = opts.clone();
        n.add_described(
            name,
            Visibility::IfShared2(0, 1),
            N::describe_copy,
            move |cx, a| {
                let (dst, src, len) = (arg(a, 0)?, arg(a, 1)?, arg(a, 2)?);
                if len > 0 {
                    let len = N::checked_len(len)?;
                    let v = load(cx, &o, src, len, Order::NonAtomic)?;
                    store(cx, &o, dst, v, Order::NonAtomic)?;
                }
                Ok(NativeResult::Return(Val::Int(0)))
            },
        );
    }
    let o = opts.clone();
    n.add_described(
        abi::MEMSET,
        Visibility::IfShared(0),
        N::describe_copy,
        move |cx, a| {
            let (dst, byte, len) = (arg(a, 0)?, arg(a, 1)? as u8, arg(a, 2)?);
            if len > 0 {
                let len = N::checked_len(len)?;
                cx.check(dst, u64::from(len), Access::Write)?;
                let bytes = Payload::from_bytes(vec![byte; len as usize]);
                store(cx, &o, dst, bytes, Order::NonAtomic)?;
            }
            Ok(NativeResult::Return(Val::Int(0)))
        },
    );
    let o = opts.clone();
    n.add_described(
        abi::FENCE_ORDER,
        Visibility::Always,
        describe_fence,
        move |cx, a| {
            fence(cx, &o, order_arg(a, 0)?)?;
            Ok(NativeResult::Return(Val::Int(0)))
        },
    );
    // `mfence` written in inline asm: x86's full barrier, a seq_cst fence.
    let o = opts.clone();
    n.add_described(
        abi::FENCE,
        Visibility::Always,
        describe_fence,
        move |cx, _| {
            fence(cx, &o, Order::SeqCst)?;
            Ok(NativeResult::Return(Val::Int(0)))
        },
    );
    // The pass's fences around library calls stand for x86's locked instructions; C11
    // orders a library call only through the synchronisation it makes (the sync hook).
    n.add_described(
        abi::CALL_FENCE,
        Visibility::Never,
        |_, _, _| "library call".into(),
        |_, _| Ok(NativeResult::Return(Val::Int(0))),
    );
    n.mark_detail(abi::CALL_FENCE);
    N::carry_undefined_values(n);
    let o = opts.clone();
    n.add_described(
        abi::EVICT,
        Visibility::IfShared(0),
        N::describe_evict,
        move |cx, a| {
            evict(cx, &o, arg(a, 0)?)?;
            Ok(NativeResult::Return(Val::Int(0)))
        },
    );
    n.mark_object_dies(abi::EVICT);
    let o = opts.clone();
    n.set_evict_hook(move |cx, a| {
        evict(cx, &o, arg(a, 0)?)?;
        Ok(NativeResult::Return(Val::Int(0)))
    });
    // What the library publishes (`pthread_once`'s routine done) is published by the
    // primitive's own release and acquire; its full barrier is a seq_cst fence.
    let o = opts.clone();
    n.set_fence_hook(move |cx, _| {
        fence(cx, &o, Order::SeqCst)?;
        Ok(NativeResult::Return(Val::Int(0)))
    });
    let o = opts.clone();
    n.set_sync_hook(std::sync::Arc::new(move |cx, event| sync(cx, &o, event)));
    n.set_data_view(std::sync::Arc::new(NonAtomicData(opts.clone())));
    N::register_program_accesses(n);
}

/// Library functions (string functions and the like) read and write shared memory as
/// non-atomic accesses of the calling thread.
struct NonAtomicData(C11Options);

impl DataView for NonAtomicData {
    fn read(&self, cx: &mut NativeCx<'_>, ptr: u64, len: u64) -> Result<Fragment, Failure> {
        let len = N::checked_len(len)?;
        let v = load_by(cx, &self.0, ptr, len, Order::NonAtomic, Accessor::Library)?;
        Ok(fragment(&v))
    }
    fn write(&self, cx: &mut NativeCx<'_>, ptr: u64, frag: &Fragment) -> Result<(), Failure> {
        N::checked_len(frag.data.len() as u64)?;
        let v = payload(frag.clone());
        store_by(cx, &self.0, ptr, v, Order::NonAtomic, Accessor::Library)
    }
}

/// The memory order in argument `i` (the engine's code, `MemOrder::code`).
fn order_arg(a: &[Val], i: usize) -> Result<Order, Failure> {
    let code = arg(a, i)?;
    let order = MemOrder::from_code(code)
        .ok_or_else(|| Failure::unsupported(format!("unsupported: memory order code {code}")))?;
    Ok(match order {
        MemOrder::NotAtomic => Order::NonAtomic,
        MemOrder::Relaxed => Order::Relaxed,
        MemOrder::Acquire => Order::Acquire,
        MemOrder::Release => Order::Release,
        MemOrder::AcqRel => Order::AcqRel,
        MemOrder::SeqCst => Order::SeqCst,
    })
}

fn range_of(p: u64, len: u32) -> Range {
    let (obj, off) = ptr_parts(p);
    Range::new(obj, off, len)
}

/// Whether a native's access is the program's own, which the natives record for race
/// detection (`NativeCx::race_access`), or a library function's through the data view,
/// which the engine records when the call returns.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Accessor {
    Program,
    Library,
}

fn load(
    cx: &mut NativeCx<'_>,
    opts: &C11Options,
    p: u64,
    len: u32,
    order: Order,
) -> Result<Payload, Failure> {
    load_by(cx, opts, p, len, order, Accessor::Program)
}

fn load_by(
    cx: &mut NativeCx<'_>,
    opts: &C11Options,
    p: u64,
    len: u32,
    order: Order,
    by: Accessor,
) -> Result<Payload, Failure> {
    cx.check(p, u64::from(len), Access::Read)?;
    let (tid, range) = (cx.tid, range_of(p, len));
    let newest = newest_value(cx, range);
    let v = with_memory(
        cx,
        opts,
        range,
        |m, env| m.load(&mut Mem(env), &mut Chooser(env), tid, range, order),
        |cx, _| record(cx, by, p, len, false, order),
    )?;
    note_read(cx, &v, newest, p, len, Read::Value);
    Ok(v)
}

fn store(
    cx: &mut NativeCx<'_>,
    opts: &C11Options,
    p: u64,
    v: Payload,
    order: Order,
) -> Result<(), Failure> {
    store_by(cx, opts, p, v, order, Accessor::Program)
}

fn store_by(
    cx: &mut NativeCx<'_>,
    opts: &C11Options,
    p: u64,
    v: Payload,
    order: Order,
    by: Accessor,
) -> Result<(), Failure> {
    cx.check(p, u64::from(v.len()), Access::Write)?;
    if cx.is_shared(p) {
        // The stored pointers become reachable by other threads.
        for &o in &v.ptr_offsets {
            let at = o as usize;
            if let Some(b) = v.data.get(at..at + 8) {
                cx.share(u64::from_le_bytes(b.try_into().unwrap_or([0; 8])));
            }
        }
    }
    let (tid, range) = (cx.tid, range_of(p, v.len()));
    with_memory(
        cx,
        opts,
        range,
        |m, env| m.store(&mut Mem(env), &mut Chooser(env), tid, range, v, order),
        |cx, _| record(cx, by, p, range.len, true, order),
    )
}

/// A compare-exchange of `bytes` bytes: it returns the value read, and a weak one
/// also whether it stored (the pass compares a strong one's value itself).
fn add_cmpxchg(
    n: &mut Natives,
    opts: &C11Options,
    name: &'static str,
    describe: N::Describe,
    bytes: u32,
    strength: Strength,
) {
    let o = opts.clone();
    n.add_described(name, Visibility::IfShared(0), describe, move |cx, a| {
        let p = arg(a, 0)?;
        let (expected, desired) = (arg_val(a, 1)?.bits(), arg_val(a, 2)?);
        let orders = (order_arg(a, 3)?, order_arg(a, 4)?);
        let desired_undef = cx.arg_undefined(2).cloned();
        let (old, stored) = locked(cx, &o, p, bytes, orders, strength, &|old| {
            (old.to_u128() == expected)
                .then(|| N::val_to_payload(&desired, desired_undef.as_ref(), bytes))
        })?;
        Ok(NativeResult::Return(match strength {
            Strength::Strong => N::loaded(cx, &old, p),
            Strength::Weak => N::loaded_with_flag(cx, &old, p, stored),
        }))
    });
}

fn rmw(
    cx: &mut NativeCx<'_>,
    opts: &C11Options,
    p: u64,
    len: u32,
    orders: (Order, Order),
    update: &dyn Fn(&Payload) -> Option<Payload>,
) -> Result<Payload, Failure> {
    let (old, _) = locked(cx, opts, p, len, orders, Strength::Strong, update)?;
    Ok(old)
}

/// Whether a compare-exchange may fail spuriously (`cmpxchg weak`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Strength {
    Strong,
    Weak,
}

/// A read-modify-write or compare-exchange: the value read and whether it stored.
fn locked(
    cx: &mut NativeCx<'_>,
    opts: &C11Options,
    p: u64,
    len: u32,
    (success, failure): (Order, Order),
    strength: Strength,
    update: &dyn Fn(&Payload) -> Option<Payload>,
) -> Result<(Payload, bool), Failure> {
    cx.check(p, u64::from(len), Access::Write)?;
    let (tid, range) = (cx.tid, range_of(p, len));
    let newest = newest_value(cx, range);
    let (old, stored) = with_memory(
        cx,
        opts,
        range,
        |m, env| {
            let (mem, choice) = (&mut Mem(env), &mut Chooser(env));
            match strength {
                Strength::Strong => m.rmw(mem, choice, tid, range, success, failure, update),
                Strength::Weak => {
                    m.compare_exchange_weak(mem, choice, tid, range, success, failure, update)
                }
            }
        },
        // A failing compare-exchange only reads, with its failure order.
        |cx, &(_, stored)| match stored {
            true => record(cx, Accessor::Program, p, len, true, success),
            false => record(cx, Accessor::Program, p, len, false, failure),
        },
    )?;
    // Spurious: it read the value it expected (the comparison would succeed) and did
    // not store.
    let spurious = cx.tracing() && strength == Strength::Weak && !stored;
    let read = if spurious && update(&old).is_some() {
        Read::Spurious
    } else {
        Read::Value
    };
    note_read(cx, &old, newest, p, len, read);
    Ok((old, stored))
}

fn fence(cx: &mut NativeCx<'_>, opts: &C11Options, order: Order) -> Result<(), Failure> {
    let tid = cx.tid;
    with_machine(
        cx,
        opts,
        |m, env| {
            if m.fence(&mut Chooser(env), tid, order) {
                Ok(())
            } else {
                Err(C11Error::NoOutcome)
            }
        },
        |cx, _| cx.race_fence(mem_order(order)),
    )
}

fn evict(cx: &mut NativeCx<'_>, opts: &C11Options, p: u64) -> Result<(), Failure> {
    let (obj, _) = ptr_parts(p);
    if p == 0 || C11State::of(cx.state).is_none() {
        return Ok(());
    }
    with_machine(
        cx,
        opts,
        |m, _| {
            m.forget_object(obj);
            Ok(())
        },
        |_, _| {},
    )
}

fn sync(cx: &mut NativeCx<'_>, opts: &C11Options, event: SyncEvent) {
    let tid = cx.tid;
    let key = |p: u64| {
        let (object, offset) = ptr_parts(p);
        LocKey { object, offset }
    };
    // Nothing here can fail: the machine only moves views. (Race detection records
    // the primitive's happens-before itself, `NativeCx::race_acquire` and the like.)
    let _ = with_machine(
        cx,
        opts,
        |m, _| {
            match event {
                SyncEvent::Acquire(p) => m.acquire_from(tid, key(p)),
                SyncEvent::Release(p) => m.release_to(tid, key(p)),
                SyncEvent::Spawn(child) => m.spawn(tid, child),
                SyncEvent::Join(done) => m.join(tid, done),
            }
            Ok(())
        },
        |_, _| {},
    );
}

/// Race detection: the program's access (see [`Accessor`]).
fn record(cx: &mut NativeCx<'_>, by: Accessor, p: u64, len: u32, write: bool, order: Order) {
    if by == Accessor::Program {
        cx.race_access(p, u64::from(len), write, mem_order(order));
    }
}

fn mem_order(order: Order) -> MemOrder {
    match order {
        Order::NonAtomic => MemOrder::NotAtomic,
        Order::Relaxed => MemOrder::Relaxed,
        Order::Acquire => MemOrder::Acquire,
        Order::Release => MemOrder::Release,
        Order::AcqRel => MemOrder::AcqRel,
        Order::SeqCst => MemOrder::SeqCst,
    }
}

/// A step's [`HistoryEvent`] as race detection takes it.
fn message_event(e: HistoryEvent) -> MessageEvent {
    let k = |l: LocKey| (l.object, l.offset);
    match e {
        HistoryEvent::Started { at, retired } => MessageEvent::Started {
            at: k(at),
            retired: retired.into_iter().map(k).collect(),
        },
        HistoryEvent::Read { at, index, order } => MessageEvent::Read {
            at: k(at),
            index,
            order: mem_order(order),
        },
        HistoryEvent::Wrote {
            at,
            index,
            order,
            rmw,
        } => MessageEvent::Wrote {
            at: k(at),
            index,
            order: mem_order(order),
            rmw,
        },
        HistoryEvent::Dropped { at, count } => MessageEvent::Dropped { at: k(at), count },
        HistoryEvent::Forgotten { at } => MessageEvent::Forgotten { at: k(at) },
    }
}

/// Runs `f` on the machine, first starting `range`'s location again from memory when
/// memory was written behind the machine's back; `after` as in [`with_machine`].
fn with_memory<R>(
    cx: &mut NativeCx<'_>,
    opts: &C11Options,
    range: Range,
    f: impl FnOnce(&mut C11Memory, &Env<'_, '_>) -> Result<R, C11Error<Failure>>,
    after: impl FnOnce(&mut NativeCx<'_>, &R),
) -> Result<R, Failure> {
    with_machine(
        cx,
        opts,
        |m, env| {
            // The bytes alone: how pointers and undefined bits are recorded may differ
            // between the engine's memory and a message without the value differing.
            if let Some(newest) = m.newest(range) {
                let now = Mem(env).read(range).map_err(C11Error::Memory)?;
                if newest.data != now.data {
                    m.restart(range);
                }
            }
            f(m, env)
        },
        after,
    )
}

/// Runs `f` on the machine of the state (a fresh one if none), with the engine as
/// memory and chooser, and puts it back (or none, when it is the initial machine, so
/// a program that never touches it has the same states as without it). When races
/// are tracked, `after` (the step's own access, for race detection) runs on what `f`
/// returned, and then race detection takes what the step did to the histories (the
/// access is recorded before what it releases, and before what it acquires). Under
/// tracing, the writers kept beside the machine follow the step.
fn with_machine<R>(
    cx: &mut NativeCx<'_>,
    opts: &C11Options,
    f: impl FnOnce(&mut C11Memory, &Env<'_, '_>) -> Result<R, C11Error<Failure>>,
    after: impl FnOnce(&mut NativeCx<'_>, &R),
) -> Result<R, Failure> {
    let mut writers = if cx.tracing() {
        Some(take_writers(cx, opts))
    } else {
        None
    };
    let mut memory = match cx.state.ext.take() {
        Some(b) => match b.as_any().downcast_ref::<C11State>() {
            Some(s) => s.memory.clone(),
            None => C11Memory::new(opts.history_bound),
        },
        None => C11Memory::new(opts.history_bound),
    };
    // Memory released without an eviction (a thread's stack, a block freed by the
    // library) takes its locations with it: the object number may be reused.
    let mut dead = Vec::new();
    memory.for_each_pointer(&mut |p| {
        let (obj, _) = ptr_parts(p);
        if obj != 0 && cx.state.memory.get(obj).is_none_or(|o| o.freed) {
            dead.push(obj);
        }
    });
    for obj in dead {
        memory.forget_object(obj);
    }
    let r = {
        let env = Env {
            cx: RefCell::new(&mut *cx),
        };
        f(&mut memory, &env)
    };
    if cx.footprint_recording() {
        // Collection and the SC order's renumbering reach every location.
        cx.footprint_everything();
    }
    let log = memory.take_log();
    if let Some(w) = writers.as_mut() {
        follow_writers(cx, w, &log, &memory);
    }
    if cx.races_tracked() {
        if let Ok(r) = &r {
            after(cx, r);
        }
        let events: Vec<MessageEvent> = log.into_iter().map(message_event).collect();
        cx.race_messages(&events);
    }
    let bound_hit = memory.bound_hit();
    if !memory.is_initial() {
        cx.state.ext = Some(Box::new(C11State { memory }));
    }
    if let Some(w) = writers {
        put_writers(cx, opts, w);
    }
    if bound_hit && r.is_ok() {
        return Err(Failure::new(
            ErrorKind::StepLimit,
            format!(
                "history bound {} reached: a location kept more values than the bound \
                 while some thread could still read the oldest (--history-bound)",
                opts.history_bound
            ),
        ));
    }
    r.map_err(|e| match e {
        C11Error::Memory(f) => f,
        other => Failure::unsupported(format!("unsupported: {other}")),
    })
}

/// Under tracing, before a step: the writers kept beside the state's machine (none
/// yet: empty), leaving a plain [`C11State`] for the step.
#[cold]
#[inline(never)]
fn take_writers(cx: &mut NativeCx<'_>, opts: &C11Options) -> Box<Writers> {
    let mut writers = Box::default();
    if let Some(mut b) = cx.state.ext.take() {
        cx.state.ext = Some(match b.as_any_mut().downcast_mut::<TracedC11State>() {
            Some(t) => {
                writers = std::mem::take(&mut t.writers);
                let empty = C11Memory::new(opts.history_bound);
                let memory = std::mem::replace(&mut t.state.memory, empty);
                Box::new(C11State { memory })
            }
            None => b,
        });
    }
    writers
}

/// Under tracing: the writers follow the step's log; what it wrote is the current
/// thread's, at its line.
#[cold]
#[inline(never)]
fn follow_writers(cx: &NativeCx<'_>, w: &mut Writers, log: &[HistoryEvent], memory: &C11Memory) {
    let by = Writer {
        thread: cx.tid,
        site: cx.user_location(),
    };
    w.follow(log, by);
    w.keep_agreeing(|k| memory.message_count(k));
}

/// Under tracing, after a step: the writers go back beside the state's machine.
#[cold]
#[inline(never)]
fn put_writers(cx: &mut NativeCx<'_>, opts: &C11Options, writers: Box<Writers>) {
    if let Some(mut b) = cx.state.ext.take() {
        cx.state.ext = Some(match b.as_any_mut().downcast_mut::<C11State>() {
            Some(s) => {
                let empty = C11Memory::new(opts.history_bound);
                let memory = std::mem::replace(&mut s.memory, empty);
                let state = C11State { memory };
                Box::new(TracedC11State { state, writers })
            }
            None => b,
        });
    }
}

/// Under tracing: the newest value stored at `range` before an access (what a read
/// of another value is stale against).
fn newest_value(cx: &NativeCx<'_>, range: Range) -> Option<Vec<u8>> {
    if !cx.tracing() || range.len > 8 {
        return None;
    }
    C11State::of(cx.state).and_then(|s| s.memory.newest(range).map(|p| p.data.clone()))
}

/// What a read is shown as: a value, or a weak compare-exchange's spurious failure.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Read {
    Value,
    Spurious,
}

/// Under tracing: the value a read returned; the store it read, when another
/// thread's; when it read a value older than the newest stored before it, why
/// that was allowed: its thread's view of the location was older than the newest
/// store, which it names (the newest in modification order: the one whose value the
/// read did not see); and whether a weak compare-exchange failed spuriously.
fn note_read(
    cx: &mut NativeCx<'_>,
    v: &Payload,
    newest: Option<Vec<u8>>,
    p: u64,
    len: u32,
    read: Read,
) {
    if !cx.tracing() || len > 8 {
        return;
    }
    let shown = N::payload_to_val(v);
    let differs = newest.is_some_and(|n| n != v.data);
    let from = cx
        .state
        .ext_ref::<TracedC11State>()
        .and_then(|t| t.writers.last_read());
    let reader = cx.tid;
    cx.note(move |st, program| {
        let value = match shown {
            Val::Ptr(q) => tso_engine::describe_address(program, st, q),
            other => tso_engine::describe_scalar_at(program, st, p, other.as_u64(), len),
        };
        let what = || tso_engine::describe_pointer(program, st, p);
        let why = read_from_note(program, reader, from, differs, what);
        let spurious = match read {
            Read::Spurious => {
                ", failed spuriously (weak compare-exchange: the value equals the expected \
                 one, yet it may fail, as LL/SC does on ARM)"
            }
            Read::Value => "",
        };
        if why.is_empty() {
            format!("→ {value}{spurious}")
        } else {
            format!("→ {value} ({}){spurious}", why.join("; "))
        }
    });
}

/// The parts of a read note's parenthesis: see [`note_read`]. `from` is `None` when
/// the writers are not known (the value alone then says whether the read is stale).
fn read_from_note(
    program: &tso_engine::Program,
    reader: tso_engine::ThreadId,
    from: Option<ReadFrom>,
    differs: bool,
    what: impl FnOnce() -> String,
) -> Vec<String> {
    const UNSEEN: &str =
        "stale: a newer value is stored, which this thread has not synchronised with";
    let Some(from) = from else {
        return if differs {
            vec![UNSEEN.into()]
        } else {
            Vec::new()
        };
    };
    let mut parts = Vec::new();
    if let Some(w) = from.read.filter(|w| w.thread != reader) {
        parts.push(store_name(program, w));
    }
    match from.newer {
        Some(Some(w)) if differs => parts.push(format!(
            "stale: T{reader}'s view of {} is older than {}",
            what(),
            store_name(program, w)
        )),
        Some(None) if differs => parts.push(UNSEEN.into()),
        _ => {}
    }
    parts
}

/// `T1's store at a.c:12`.
fn store_name(program: &tso_engine::Program, w: Writer) -> String {
    match w
        .site
        .filter(|&s| program.locations.get(s as usize).is_some())
    {
        Some(site) => format!("T{}'s store at {}", w.thread, N::location(program, site)),
        None => format!("T{}'s store", w.thread),
    }
}

fn describe_fence(_: &tso_engine::Program, _: &State, a: &[Val]) -> String {
    match a.first().and_then(|o| MemOrder::from_code(o.as_u64())) {
        Some(o) => format!("fence {o:?}").to_lowercase(),
        None => "fence seq_cst".into(),
    }
}
