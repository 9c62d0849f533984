//! pthread_create, join, exit, self, equal, detach, sched_yield.

use super::{check_only, key, ATTR, ATTR_READ, PTHREAD_T, RESULT_SLOT};
use crate::error::{ErrorKind, Failure};
use crate::natives::{arg, arg_val};
use crate::natives::{NativeCx, NativeResult, Natives, Visibility};
use crate::state::{State, ThreadId, ThreadStatus};
use crate::value::{make_ptr, ptr_parts, Val};

/// A thread's `pthread_t`: a pointer to its handle object (`Thread::handle`), as
/// glibc's is a pointer to the thread's descriptor. Never 0. Being a pointer, it is
/// renamed with the objects when a state is canonicalised up to a permutation of
/// threads (`store/symmetry.rs`), wherever the program keeps it.
pub(crate) fn handle(st: &State, tid: ThreadId) -> Val {
    Val::Ptr(make_ptr(st.thread(tid).handle, 0))
}

/// The thread whose handle is `h` (None: `h` is no thread's handle).
pub(crate) fn thread_of_handle(st: &State, h: u64) -> Option<ThreadId> {
    let (obj, off) = ptr_parts(h);
    if obj == 0 || off != 0 {
        return None;
    }
    st.threads
        .iter()
        .position(|t| t.handle == obj)
        .map(|t| t as ThreadId)
}

pub(crate) fn register(n: &mut Natives) {
    n.add("pthread_create", Visibility::Always, create);
    n.add("pthread_join", Visibility::Always, join);
    n.add("pthread_exit", Visibility::Always, exit);
    n.add("pthread_self", Visibility::Never, |cx, _| {
        Ok(NativeResult::Return(handle(cx.state, cx.tid)))
    });
    n.add("pthread_equal", Visibility::Never, |_, a| {
        Ok(NativeResult::Return(Val::bool(arg(a, 0)? == arg(a, 1)?)))
    });
    n.add("pthread_detach", Visibility::Always, detach);
    n.add("sched_yield", Visibility::Always, |_, _| {
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.alias("pthread_yield", "sched_yield");
    // Attributes are not modelled (every thread starts joinable), but the object must be
    // valid, as glibc writes it.
    n.add("pthread_attr_init", Visibility::Never, check_only(ATTR));
    n.alias("pthread_attr_destroy", "pthread_attr_init");
    n.alias("pthread_attr_setdetachstate", "pthread_attr_init");
    n.alias("pthread_attr_setstacksize", "pthread_attr_init");
}

fn create(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    // glibc writes the new thread's id through `out` unconditionally.
    let out = cx.ptr_arg(a, 0, PTHREAD_T)?;
    cx.opt_ptr_arg(a, 1, ATTR_READ)?;
    start(cx, a, out, 2)?;
    Ok(NativeResult::Return(Val::Int(0)))
}

/// Start a thread running `a[func](a[func + 1])` and write its handle through `out`.
/// The parameter keeps the argument's undefined bits: an error only if the thread
/// uses them.
pub(crate) fn start(
    cx: &mut NativeCx<'_>,
    a: &[Val],
    out: u64,
    func: usize,
) -> Result<(), Failure> {
    let (f, param) = (arg_val(a, func)?, arg_val(a, func + 1)?);
    let tid = cx.spawn(f.as_u64(), vec![param])?;
    if let Some(u) = cx.arg_undefined_with_origin(func + 1).cloned() {
        cx.state.thread_mut(tid).top_mut().set_undef(0, Some(u));
    }
    let h = handle(cx.state, tid);
    cx.write_ptr(out, &h)
}

/// pthread_exit: run the thread's cleanup handlers (see `cancel`), or else its key
/// destructors (one callback each), then end it.
fn exit(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    if cx.phase() == 0 {
        if let Some(r) = super::cancel::unwind(cx, arg_val(a, 0)?)? {
            return Ok(r);
        }
    }
    let _ = cx.callback_result();
    if let Some((destructor, value)) = key::next_destructor(cx) {
        cx.set_phase(1);
        return Ok(NativeResult::CallBack {
            func: destructor,
            args: vec![value],
        });
    }
    // The exit value keeps its undefined bits for the joiner (`ThreadExit` takes them
    // from the result's).
    cx.ret_undef = cx.arg_undefined_with_origin(0).cloned();
    Ok(NativeResult::ThreadExit(arg_val(a, 0)?))
}

fn target(cx: &NativeCx<'_>, h: u64) -> Result<u32, Failure> {
    thread_of_handle(cx.state, h).ok_or_else(|| {
        Failure::new(
            ErrorKind::PthreadMisuse,
            format!("no thread with handle {h:#x}"),
        )
    })
}

pub(crate) fn join(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    join_into(cx, a, JoinResult::Pointer)
}

/// What a join writes through its second argument: `pthread_join`'s `void *` or
/// `thrd_join`'s `int`.
#[derive(Clone, Copy)]
pub(crate) enum JoinResult {
    Pointer,
    Int,
}

/// Whether `pthread_join(h, out)` called by `tid` in `st` surely blocks at once: the
/// conditions under which `join_into` reaches `NativeResult::Block`, in its order (no
/// cancellation acting, `h` a thread's handle, no result slot to check, not itself,
/// neither joined nor detached, not finished), with a NULL `out` only (a slot would
/// need the memory check). Nothing `join_into` does before blocking changes the state.
/// Used by `Machine::blocks_at_once`; keep the two in step.
pub(crate) fn join_blocks(st: &State, tid: ThreadId, h: u64, out: u64) -> bool {
    if out != 0 || super::cancel::acts_now(st, tid) {
        return false;
    }
    let Some(t) = thread_of_handle(st, h) else {
        return false;
    };
    let th = st.thread(t);
    t != tid && !th.joined && !th.detached && !matches!(th.status, ThreadStatus::Finished(_))
}

/// Join the thread `a[0]`, storing its result through `a[1]` (if not NULL).
/// `join_blocks` mirrors its blocking conditions.
pub(crate) fn join_into(
    cx: &mut NativeCx<'_>,
    a: &[Val],
    result: JoinResult,
) -> Result<NativeResult, Failure> {
    // A cancellation point (also while blocked: a cancel request wakes the joiner).
    if let Some(r) = super::cancel::point(cx)? {
        return Ok(r);
    }
    let t = target(cx, arg(a, 0)?)?;
    let slot = match result {
        JoinResult::Pointer => RESULT_SLOT,
        JoinResult::Int => super::INT_SLOT,
    };
    let out = cx.opt_ptr_arg(a, 1, slot)?;
    if t == cx.tid {
        return Err(Failure::new(ErrorKind::Deadlock, "a thread joined itself"));
    }
    cx.footprint_thread(t);
    let th = cx.state.thread(t);
    if th.joined {
        return Err(Failure::new(
            ErrorKind::PthreadMisuse,
            format!("thread {t} joined twice"),
        ));
    }
    if th.detached {
        return Err(Failure::new(
            ErrorKind::PthreadMisuse,
            format!("join of detached thread {t}"),
        ));
    }
    let ThreadStatus::Finished(exit) = th.status.clone() else {
        return Ok(NativeResult::Block);
    };
    cx.state.thread_mut(t).joined = true;
    cx.race_join(t);
    if out != 0 {
        let shadow = exit.undef.as_ref().map(|u| &u.shadow);
        match result {
            JoinResult::Pointer => cx.write_ptr_undefined(out, &exit.value, shadow)?,
            JoinResult::Int => {
                let undef = shadow.map_or(0, |s| crate::definedness::smear(s) as u32);
                let mut frag = crate::memory::Fragment::from_bytes(
                    (exit.value.bits() as u32).to_le_bytes().to_vec(),
                );
                if undef != 0 {
                    frag.undef = undef.to_le_bytes().to_vec();
                }
                cx.write_fragment(out, &frag)?;
            }
        }
    }
    Ok(NativeResult::Return(Val::Int(0)))
}

pub(crate) fn detach(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    let t = target(cx, arg(a, 0)?)?;
    if cx.state.thread(t).detached {
        return Err(Failure::new(
            ErrorKind::PthreadMisuse,
            format!("thread {t} detached twice"),
        ));
    }
    cx.state.thread_mut(t).detached = true;
    Ok(NativeResult::Return(Val::Int(0)))
}
