//! Peterson's two-thread lock, implemented in C (`csrc/peterson.c`) and used from
//! Rust. The C file also has an unfenced variant that is correct under sequential
//! consistency but not under x86-TSO; `cargo tso test` shows the difference
//! (`tso-tests/mutual_exclusion.c`). Rust only gets the fenced lock.

use std::cell::UnsafeCell;
use std::os::raw::c_int;

/// Mirror of `struct peterson_lock` in `csrc/peterson.h`.
#[repr(C)]
struct RawLock {
    interested: [c_int; 2],
    turn: c_int,
}

extern "C" {
    fn peterson_init(lock: *mut RawLock);
    fn peterson_lock(lock: *mut RawLock, me: c_int);
    fn peterson_unlock(lock: *mut RawLock, me: c_int);
}

/// Which of the two threads is calling: Peterson's algorithm numbers them 0 and 1,
/// and two threads holding the same side at once break mutual exclusion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Zero = 0,
    One = 1,
}

/// A lock for exactly two threads, one per [`Side`].
pub struct PetersonLock {
    raw: Box<UnsafeCell<RawLock>>,
}

// SAFETY: all accesses to the raw lock are atomic operations in the C code.
unsafe impl Send for PetersonLock {}
unsafe impl Sync for PetersonLock {}

/// Holding the lock; dropping it unlocks.
#[must_use = "the lock is released when the guard is dropped"]
pub struct PetersonGuard<'a> {
    lock: &'a PetersonLock,
    side: Side,
}

impl PetersonLock {
    pub fn new() -> PetersonLock {
        let raw = Box::new(UnsafeCell::new(RawLock {
            interested: [0; 2],
            turn: 0,
        }));
        // SAFETY: the lock is not shared yet.
        unsafe { peterson_init(raw.get()) };
        PetersonLock { raw }
    }

    /// Waits until `side` may enter. The caller must be the only thread using `side`
    /// until the guard is dropped.
    pub fn lock(&self, side: Side) -> PetersonGuard<'_> {
        // SAFETY: the pointer is valid for the lock's lifetime; the C code only
        // uses atomic operations on it.
        unsafe { peterson_lock(self.raw.get(), side as c_int) };
        PetersonGuard { lock: self, side }
    }
}

impl Default for PetersonLock {
    fn default() -> Self {
        PetersonLock::new()
    }
}

impl Drop for PetersonGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: as in `lock`; this side holds the lock.
        unsafe { peterson_unlock(self.lock.raw.get(), self.side as c_int) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// A counter that only the lock protects, so lost updates show up.
    struct Unprotected(UnsafeCell<u64>);
    // SAFETY: only accessed while holding the Peterson lock (that is the test).
    unsafe impl Sync for Unprotected {}

    #[test]
    fn one_thread_locks_and_unlocks_repeatedly_from_both_sides() {
        let lock = PetersonLock::new();
        for _ in 0..3 {
            drop(lock.lock(Side::Zero));
            drop(lock.lock(Side::One));
        }
    }

    #[test]
    fn two_threads_do_not_lose_updates() {
        const ROUNDS: u64 = 50_000;
        let lock = Arc::new(PetersonLock::new());
        let counter = Arc::new(Unprotected(UnsafeCell::new(0)));
        let workers: Vec<_> = [Side::Zero, Side::One]
            .into_iter()
            .map(|side| {
                let lock = Arc::clone(&lock);
                let counter = Arc::clone(&counter);
                std::thread::spawn(move || {
                    for _ in 0..ROUNDS {
                        let _guard = lock.lock(side);
                        // SAFETY: the guard gives exclusive access.
                        unsafe {
                            let value = counter.0.get().read_volatile();
                            counter.0.get().write_volatile(value + 1);
                        }
                    }
                })
            })
            .collect();
        for worker in workers {
            worker.join().unwrap();
        }
        // SAFETY: both workers have finished.
        assert_eq!(unsafe { *counter.0.get() }, 2 * ROUNDS);
    }
}
