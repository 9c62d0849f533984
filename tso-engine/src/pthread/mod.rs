//! POSIX threads, modelled natively. Synchronisation objects keep their whole state in
//! the program's own memory (the pthread_*_t bytes), so it is part of the state and
//! static initialisers (all zero) just work.

pub(crate) mod barrier;
pub(crate) mod c11;
pub(crate) mod cancel;
pub(crate) mod cond;
pub(crate) mod key;
pub(crate) mod mutex;
pub(crate) mod once;
pub(crate) mod rwlock;
pub(crate) mod semaphore;
pub(crate) mod spin;
pub(crate) mod thread;

use crate::error::Failure;
use crate::natives::{Natives, Pointee};
use crate::state::ThreadId;

// What a pointer to each pthread type must point to: the whole object, as glibc defines
// it on x86-64. Every call checks its object pointers against these on entry.
pub(crate) const PTHREAD_T: Pointee = Pointee::write(8);
pub(crate) const ATTR: Pointee = Pointee::write(56);
pub(crate) const ATTR_READ: Pointee = Pointee::read(56);
pub(crate) const MUTEX: Pointee = Pointee::write(40);
pub(crate) const MUTEXATTR: Pointee = Pointee::write(4);
pub(crate) const MUTEXATTR_READ: Pointee = Pointee::read(4);
pub(crate) const COND: Pointee = Pointee::write(48);
pub(crate) const CONDATTR: Pointee = Pointee::write(4);
pub(crate) const CONDATTR_READ: Pointee = Pointee::read(4);
pub(crate) const RWLOCK: Pointee = Pointee::write(56);
pub(crate) const RWLOCKATTR: Pointee = Pointee::write(8);
pub(crate) const RWLOCKATTR_READ: Pointee = Pointee::read(8);
pub(crate) const BARRIER: Pointee = Pointee::write(32);
pub(crate) const BARRIERATTR: Pointee = Pointee::write(4);
pub(crate) const BARRIERATTR_READ: Pointee = Pointee::read(4);
pub(crate) const ONCE: Pointee = Pointee::write(4);
pub(crate) const KEY: Pointee = Pointee::write(4);
pub(crate) const SPINLOCK: Pointee = Pointee::write(4);
/// `sem_t` (glibc x86-64: 32 bytes).
pub(crate) const SEMAPHORE: Pointee = Pointee::write(32);
/// An `int *` result (sem_getvalue).
pub(crate) const INT_SLOT: Pointee = Pointee::write(4);
/// A `struct timespec` deadline, read by timed waits.
pub(crate) const TIMESPEC_READ: Pointee = Pointee::read(16);
/// A pointer-sized result slot (pthread_join's `void **`).
pub(crate) const RESULT_SLOT: Pointee = Pointee::write(8);

/// A native whose only effect is checking that its object argument is valid (attribute
/// setters and destructors whose settings the model does not use).
pub(crate) fn check_only(
    pointee: Pointee,
) -> impl Fn(
    &mut crate::natives::NativeCx<'_>,
    &[crate::value::Val],
) -> Result<crate::natives::NativeResult, Failure> {
    move |cx, a| {
        cx.ptr_arg(a, 0, pointee)?;
        Ok(crate::natives::NativeResult::Return(
            crate::value::Val::Int(0),
        ))
    }
}

pub(crate) fn register(n: &mut Natives) {
    thread::register(n);
    mutex::register(n);
    cond::register(n);
    rwlock::register(n);
    barrier::register(n);
    once::register(n);
    key::register(n);
    spin::register(n);
    semaphore::register(n);
    cancel::register(n);
    // After the pthread functions: C11 threads alias some of them.
    c11::register(n);
    // Values handed on with their undefined bits: a thread's argument (to its start
    // routine), a thread's result (to its joiner). A key's value is not: the library
    // inspects it (a destructor runs only for a non-NULL value).
    n.carry_undefined("pthread_create", 1 << 3);
    n.carry_undefined("pthread_exit", 1 << 0);
}

/// Sets of threads (cond waiters, rwlock readers, barrier arrivals) are 64-bit masks
/// stored in the object's bytes; this is a thread's bit.
pub(crate) fn thread_bit(tid: ThreadId) -> Result<u64, Failure> {
    if tid >= 64 {
        return Err(Failure::unsupported(format!(
            "unsupported: thread {tid} uses a condition variable, rwlock or barrier (only threads 0..63 are modelled)"
        )));
    }
    Ok(1u64 << tid)
}

/// The caller is about to store a thread's number (or a mask of them) in the program's
/// memory, where renaming threads cannot reach it: thread symmetry is off for this state
/// and all that follow (`store/symmetry.rs`).
pub(crate) fn stores_thread_ids(cx: &mut crate::natives::NativeCx<'_>) {
    cx.state.thread_ids_in_memory = true;
}

/// Whether the model of library function `name` may store thread numbers in memory
/// (`stores_thread_ids`). A program that declares one is checked without thread
/// symmetry from the start: turning it off only once such a call is made would keep
/// the representatives' thread orders reached before, each stored apart.
pub(crate) fn stores_thread_ids_name(name: &str) -> bool {
    let cond_wait = (name.contains("cond") || name.starts_with("cnd_")) && name.contains("wait");
    cond_wait
        || name.starts_with("pthread_rwlock_")
        || name.starts_with("pthread_spin_")
        || matches!(
            name,
            "pthread_barrier_wait" | "pthread_once" | "call_once" | "__cxa_guard_acquire"
        )
}

/// An unsigned little-endian integer of `len` bytes read straight from a state's memory
/// (for the deadlock analysis, which inspects synchronisation objects between steps).
pub(crate) fn peek(st: &crate::state::State, p: u64, len: u64) -> Option<u64> {
    let b = st.memory.read_bytes(p, len).ok()?;
    let mut buf = [0u8; 8];
    buf[..len as usize].copy_from_slice(b);
    Some(u64::from_le_bytes(buf))
}

/// The thread a stored "thread id + 1" names (None for 0).
pub(crate) fn thread_of(plus_one: u64) -> Option<ThreadId> {
    plus_one.checked_sub(1).map(|t| t as ThreadId)
}

/// The ids of the threads in a mask, lowest first.
pub(crate) fn threads_in(mask: u64) -> Vec<ThreadId> {
    (0..64).filter(|t| mask & (1u64 << t) != 0).collect()
}

/// The next key destructor to run for the calling thread, if any (used when a start
/// routine returns; pthread_exit runs them itself).
pub(crate) fn next_key_destructor(
    cx: &mut crate::natives::NativeCx<'_>,
) -> Option<(u64, crate::value::Val)> {
    key::next_destructor(cx)
}
