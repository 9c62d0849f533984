//! pthread_rwlock_*: readers-writer locks.
//!
//! State lives in the `pthread_rwlock_t` bytes (56 on x86-64; glibc's static initialiser
//! is zero in the bytes used here): offset 0 holds the mask of threads holding a read
//! lock, offset 8 the writer (thread id + 1, 0 = none). No preference between readers and
//! writers is modelled: any thread that can take the lock may. A thread taking a read
//! lock it already holds (allowed by POSIX, counted) is reported as unsupported.

use super::{check_only, thread_bit, RWLOCK, RWLOCKATTR, RWLOCKATTR_READ};
use crate::error::{ErrorKind, Failure};
use crate::memory::Fragment;
use crate::natives::{NativeCx, NativeResult, Natives, Visibility};
use crate::value::Val;

const READERS: u64 = 0;
const WRITER: u64 = 8;
const EBUSY: u128 = 16;
const EDEADLK: u128 = 35;
/// Race detection: writers release to the lock's address, readers to this key past
/// it. A reader acquires what writers released; a writer what writers and readers did
/// (readers do not order each other).
const READERS_KEY: u64 = 1 << 16;

pub(crate) fn register(n: &mut Natives) {
    n.add("pthread_rwlock_init", Visibility::IfShared(0), |cx, a| {
        cx.opt_ptr_arg(a, 1, RWLOCKATTR_READ)?;
        cx.write_fragment(
            cx.ptr_arg(a, 0, RWLOCK)?,
            &Fragment::from_bytes(vec![0; 16]),
        )?;
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.add("pthread_rwlock_rdlock", Visibility::Always, |cx, a| {
        read_lock(cx, cx.ptr_arg(a, 0, RWLOCK)?, false)
    });
    n.add("pthread_rwlock_tryrdlock", Visibility::Always, |cx, a| {
        read_lock(cx, cx.ptr_arg(a, 0, RWLOCK)?, true)
    });
    n.add("pthread_rwlock_wrlock", Visibility::Always, |cx, a| {
        write_lock(cx, cx.ptr_arg(a, 0, RWLOCK)?, false)
    });
    n.add("pthread_rwlock_trywrlock", Visibility::Always, |cx, a| {
        write_lock(cx, cx.ptr_arg(a, 0, RWLOCK)?, true)
    });
    n.add("pthread_rwlock_unlock", Visibility::Always, |cx, a| {
        unlock(cx, cx.ptr_arg(a, 0, RWLOCK)?)
    });
    n.add(
        "pthread_rwlock_destroy",
        Visibility::IfShared(0),
        |cx, a| {
            let l = cx.ptr_arg(a, 0, RWLOCK)?;
            if cx.read_int(l + READERS, 8)? != 0 || cx.read_int(l + WRITER, 4)? != 0 {
                return Err(Failure::new(
                    ErrorKind::PthreadMisuse,
                    "destroy of a locked rwlock",
                ));
            }
            Ok(NativeResult::Return(Val::Int(0)))
        },
    );
    n.add(
        "pthread_rwlockattr_init",
        Visibility::Never,
        check_only(RWLOCKATTR),
    );
    n.alias("pthread_rwlockattr_destroy", "pthread_rwlockattr_init");
    n.alias("pthread_rwlockattr_setkind_np", "pthread_rwlockattr_init");
    n.alias("pthread_rwlockattr_setpshared", "pthread_rwlockattr_init");
}

/// (mask of readers, writer as thread id + 1) of rwlock `l` in a state.
pub(crate) fn holders_in(st: &crate::state::State, l: u64) -> Option<(u64, u64)> {
    Some((
        super::peek(st, l + READERS, 8)?,
        super::peek(st, l + WRITER, 4)?,
    ))
}

fn read_lock(cx: &mut NativeCx<'_>, l: u64, try_only: bool) -> Result<NativeResult, Failure> {
    let me = thread_bit(cx.tid)?;
    let readers = cx.read_int(l + READERS, 8)?;
    let writer = cx.read_int(l + WRITER, 4)?;
    if writer == cx.tid as u64 + 1 {
        // glibc reports this instead of blocking forever.
        return Ok(NativeResult::Return(Val::Int(EDEADLK)));
    }
    if readers & me != 0 {
        return Err(Failure::unsupported(
            "unsupported: a thread read-locks an rwlock it already holds for reading",
        ));
    }
    if writer != 0 {
        return Ok(if try_only {
            NativeResult::Return(Val::Int(EBUSY))
        } else {
            NativeResult::Block
        });
    }
    crate::pthread::stores_thread_ids(cx);
    cx.write_int(l + READERS, 8, readers | me)?;
    cx.race_acquire(l);
    Ok(NativeResult::Return(Val::Int(0)))
}

fn write_lock(cx: &mut NativeCx<'_>, l: u64, try_only: bool) -> Result<NativeResult, Failure> {
    let me = thread_bit(cx.tid)?;
    let readers = cx.read_int(l + READERS, 8)?;
    let writer = cx.read_int(l + WRITER, 4)?;
    if writer == cx.tid as u64 + 1 {
        return Ok(NativeResult::Return(Val::Int(EDEADLK)));
    }
    if writer != 0 || readers != 0 {
        if try_only {
            return Ok(NativeResult::Return(Val::Int(EBUSY)));
        }
        if readers == me {
            return Err(Failure::new(
                ErrorKind::Deadlock,
                "a thread write-locks an rwlock it holds for reading",
            ));
        }
        return Ok(NativeResult::Block);
    }
    crate::pthread::stores_thread_ids(cx);
    cx.write_int(l + WRITER, 4, cx.tid as u64 + 1)?;
    cx.race_acquire(l);
    cx.race_acquire(l + READERS_KEY);
    Ok(NativeResult::Return(Val::Int(0)))
}

fn unlock(cx: &mut NativeCx<'_>, l: u64) -> Result<NativeResult, Failure> {
    let me = thread_bit(cx.tid)?;
    let readers = cx.read_int(l + READERS, 8)?;
    let writer = cx.read_int(l + WRITER, 4)?;
    if writer == cx.tid as u64 + 1 {
        cx.write_int(l + WRITER, 4, 0)?;
        cx.race_release(l);
    } else if readers & me != 0 {
        cx.write_int(l + READERS, 8, readers & !me)?;
        cx.race_release(l + READERS_KEY);
    } else {
        let why = if writer == 0 && readers == 0 {
            "unlock of an rwlock that is not locked"
        } else {
            "unlock of an rwlock the thread does not hold"
        };
        return Err(Failure::new(ErrorKind::PthreadMisuse, why));
    }
    Ok(NativeResult::Return(Val::Int(0)))
}
