//! pthread_key_*: thread-specific data.
//!
//! Values live in each thread's `Thread::specific` (kept sorted by key, NULL values
//! absent, so equal contents hash equally); keys come from `State::next_key`. The key
//! table itself (which keys exist, their destructors) is kept in thread 0's `specific`
//! under `LIVE_KEY | key`: the destructor pointer, or `NO_DESTRUCTOR`. Destructors run
//! when a thread calls pthread_exit (and, once the engine routes a start routine's
//! return through pthread_exit, when it returns), each as a callback.
//! Keys at or above `RESERVED` are the C library's own per-thread data (errno, ...).

use crate::error::Failure;
use crate::natives::{arg, arg_val};
use crate::natives::{NativeCx, NativeResult, Natives, Visibility};
use crate::state::{State, ThreadId};
use crate::value::Val;

/// Entry tag marking a live key in thread 0's table.
const LIVE_KEY: u32 = 0x8000_0000;
/// First key reserved for the C library's hidden per-thread data.
pub(crate) const RESERVED: u32 = 0xFFFF_FF00;
const NO_DESTRUCTOR: Val = Val::Int(1);
const EINVAL: u128 = 22;
const EAGAIN: u128 = 11;

pub(crate) fn register(n: &mut Natives) {
    n.add("pthread_key_create", Visibility::Always, create);
    n.add("pthread_key_delete", Visibility::Always, delete);
    n.add("pthread_getspecific", Visibility::Never, |cx, a| {
        let key = arg(a, 0)? as u32;
        Ok(NativeResult::Return(
            specific(cx.state, cx.tid, key).unwrap_or(Val::Int(0)),
        ))
    });
    n.add("pthread_setspecific", Visibility::Never, |cx, a| {
        let key = arg(a, 0)? as u32;
        if !is_live(cx.state, key) {
            return Ok(NativeResult::Return(Val::Int(EINVAL)));
        }
        set_specific(cx.state, cx.tid, key, arg_val(a, 1)?);
        Ok(NativeResult::Return(Val::Int(0)))
    });
    // libstdc++'s gthread layer checks for (and may call) the internal name.
    n.alias("__pthread_key_create", "pthread_key_create");
}

/// A thread's value for `key`, if set and not NULL.
pub(crate) fn specific(st: &State, tid: ThreadId, key: u32) -> Option<Val> {
    let t = st.thread(tid);
    t.specific
        .binary_search_by_key(&key, |e| e.0)
        .ok()
        .map(|i| t.specific[i].1.clone())
}

/// Set (or, with NULL, clear) a thread's value for `key`.
pub(crate) fn set_specific(st: &mut State, tid: ThreadId, key: u32, v: Val) {
    let null = matches!(v, Val::Int(0));
    let t = st.thread_mut(tid);
    match t.specific.binary_search_by_key(&key, |e| e.0) {
        Ok(i) if null => {
            t.specific.remove(i);
        }
        Ok(i) => t.specific[i].1 = v,
        Err(_) if null => {}
        Err(i) => t.specific.insert(i, (key, v)),
    }
}

fn is_live(st: &State, key: u32) -> bool {
    key != 0 && key < LIVE_KEY && specific(st, 0, LIVE_KEY | key).is_some()
}

fn create(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    let out = cx.ptr_arg(a, 0, super::KEY)?;
    let key = cx.state.next_key;
    if key >= LIVE_KEY {
        return Ok(NativeResult::Return(Val::Int(EAGAIN)));
    }
    cx.state.next_key += 1;
    let destructor = arg_val(a, 1)?;
    let entry = if destructor.as_u64() == 0 {
        NO_DESTRUCTOR
    } else {
        destructor
    };
    set_specific(cx.state, 0, LIVE_KEY | key, entry);
    cx.write_int(out, 4, key as u64)?;
    Ok(NativeResult::Return(Val::Int(0)))
}

fn delete(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    let key = arg(a, 0)? as u32;
    if !is_live(cx.state, key) {
        return Ok(NativeResult::Return(Val::Int(EINVAL)));
    }
    // Destructors are not run by delete (POSIX); the values are simply forgotten.
    for t in 0..cx.state.threads.len() as ThreadId {
        set_specific(cx.state, t, key, Val::Int(0));
    }
    set_specific(cx.state, 0, LIVE_KEY | key, Val::Int(0));
    Ok(NativeResult::Return(Val::Int(0)))
}

/// The next destructor the calling thread must run before it ends: clears that value and
/// returns (destructor, value).
pub(crate) fn next_destructor(cx: &mut NativeCx<'_>) -> Option<(u64, Val)> {
    let tid = cx.tid;
    let found = cx
        .state
        .thread(tid)
        .specific
        .iter()
        .filter(|(k, _)| *k < LIVE_KEY)
        .find_map(|(k, v)| match specific(cx.state, 0, LIVE_KEY | *k) {
            Some(d) if d != NO_DESTRUCTOR => Some((*k, d.as_u64(), v.clone())),
            _ => None,
        });
    let (key, destructor, value) = found?;
    set_specific(cx.state, tid, key, Val::Int(0));
    Some((destructor, value))
}
