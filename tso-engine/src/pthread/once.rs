//! pthread_once: the `pthread_once_t` int is 0 before the first call (PTHREAD_ONCE_INIT),
//! 2 + thread id while that thread runs the init routine, and 1 once it has returned.
//! Other callers block until it is done. The routine runs as a callback; its return is
//! recognised by the callback result (not the phase), so a routine may itself use
//! multi-step natives (condition waits, nested pthread_once).

use super::ONCE;
use crate::error::{ErrorKind, Failure};
use crate::natives::arg;
use crate::natives::{NativeCx, NativeResult, Natives, Visibility};
use crate::value::Val;

const NOT_RUN: u64 = 0;
const DONE: u64 = 1;
const RUNNING_BASE: u64 = 2;

pub(crate) fn register(n: &mut Natives) {
    n.add("pthread_once", Visibility::Always, once);
}

/// The thread running the init routine of `control` in a state, if any.
pub(crate) fn runner_in(st: &crate::state::State, control: u64) -> Option<crate::state::ThreadId> {
    let state = super::peek(st, control, 4)?;
    (state >= RUNNING_BASE).then(|| (state - RUNNING_BASE) as crate::state::ThreadId)
}

fn once(cx: &mut NativeCx<'_>, a: &[Val]) -> Result<NativeResult, Failure> {
    let (control, routine) = (cx.ptr_arg(a, 0, ONCE)?, arg(a, 1)?);
    let state = cx.read_int(control, 4)?;
    let mine = RUNNING_BASE + cx.tid as u64;
    if state == mine && cx.callback_result().is_some() {
        // What the routine wrote must be visible before anyone sees it done.
        cx.fence()?;
        cx.write_int(control, 4, DONE)?;
        cx.race_release(control);
        return Ok(NativeResult::Return(Val::Int(0)));
    }
    match state {
        DONE => {
            cx.race_acquire(control);
            Ok(NativeResult::Return(Val::Int(0)))
        }
        NOT_RUN => {
            crate::pthread::stores_thread_ids(cx);
            cx.write_int(control, 4, mine)?;
            Ok(NativeResult::CallBack {
                func: routine,
                args: Vec::new(),
            })
        }
        s if s == mine => Err(Failure::new(
            ErrorKind::Deadlock,
            "pthread_once called again from its own init routine",
        )),
        _ => Ok(NativeResult::Block),
    }
}
