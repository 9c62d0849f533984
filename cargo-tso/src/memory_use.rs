//! How much heap one exploration used: a counting wrapper around the allocator
//! (mimalloc) that charges each allocation to the *account* of the run its thread works for.
//!
//! Each check runs on a thread of its own (`pipeline::on_large_stack`, the test runner's
//! workers) and its search workers join that run's account when they start
//! (`CheckOptions::worker_start`), so an account's peak is that run's memory: store
//! plus search, on however many threads, unaffected by tests that ran before it or
//! beside it (unlike the process's high-water mark). Threads charge their account in
//! batches of 64 KiB, so the shared counter is not touched on every allocation; the
//! peak is exact to within a batch per thread.

use mimalloc::MiMalloc;
use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

pub struct CountingAllocator;

/// The heap held by the threads of one run, now and at most.
#[derive(Default)]
struct Account {
    live: AtomicI64,
    peak: AtomicI64,
}

const BATCH: i64 = 64 << 10;

thread_local! {
    // Const-initialised cells without destructors: safe to touch from the allocator.
    // The account is kept alive by whoever set it (`peak_during`, `Joiner`) for as long
    // as the thread works for it.
    static ACCOUNT: Cell<*const Account> = const { Cell::new(std::ptr::null()) };
    static PENDING: Cell<i64> = const { Cell::new(0) };
}

fn add(delta: i64) {
    // `try_with`: during thread teardown the slots may be gone; counting stops there.
    let _ = PENDING.try_with(|pending| {
        let now = pending.get() + delta;
        if now.abs() < BATCH {
            pending.set(now);
        } else {
            pending.set(0);
            charge(now);
        }
    });
}

/// Charge `delta` to this thread's account, if it has one.
fn charge(delta: i64) {
    let _ = ACCOUNT.try_with(|account| {
        // SAFETY: see `ACCOUNT`: a non-null pointer is alive while it is set.
        if let Some(account) = unsafe { account.get().as_ref() } {
            let live = account.live.fetch_add(delta, Ordering::Relaxed) + delta;
            account.peak.fetch_max(live, Ordering::Relaxed);
        }
    });
}

/// Make this thread work for `account` (or none), settling what it owed the old one.
fn switch_to(account: *const Account) {
    let owed = PENDING.with(|p| p.replace(0));
    charge(owed);
    ACCOUNT.with(|a| a.set(account));
}

/// The alignment every mimalloc block has (a machine word): a request for no more
/// goes to the plain entry points, whose fast path is about half as long as the
/// aligned ones' that `MiMalloc` always takes (2 million allocations in a check of
/// `bench/programs/mcs4.c`; `bench/PERFORMANCE.md`, "Fewer instructions per
/// transition").
const WORD_ALIGN: usize = std::mem::size_of::<usize>();

// SAFETY: every call is forwarded to mimalloc, to `MiMalloc` or, for alignments a
// mimalloc block always has, to the plain `mi_malloc` family (blocks of either are
// freed by `mi_free`, which `MiMalloc.dealloc` calls); the counters are plain
// thread-local cells and atomics that never allocate.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = if layout.align() <= WORD_ALIGN {
            libmimalloc_sys::mi_malloc(layout.size()).cast()
        } else {
            MiMalloc.alloc(layout)
        };
        if !p.is_null() {
            add(layout.size() as i64);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = if layout.align() <= WORD_ALIGN {
            libmimalloc_sys::mi_zalloc(layout.size()).cast()
        } else {
            MiMalloc.alloc_zeroed(layout)
        };
        if !p.is_null() {
            add(layout.size() as i64);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        libmimalloc_sys::mi_free(ptr.cast());
        add(-(layout.size() as i64));
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = if layout.align() <= WORD_ALIGN {
            libmimalloc_sys::mi_realloc(ptr.cast(), new_size).cast()
        } else {
            MiMalloc.realloc(ptr, layout, new_size)
        };
        if !p.is_null() {
            add(new_size as i64 - layout.size() as i64);
        }
        p
    }
}

/// Lets other threads work for a run's account while it is measured.
#[derive(Clone)]
pub struct Joiner(Arc<Account>);

impl Joiner {
    /// The heap the run's threads hold now (to within a batch per thread).
    pub fn live(&self) -> u64 {
        self.0.live.load(Ordering::Relaxed).max(0) as u64
    }

    /// Charge this thread's allocations to the run until the membership is dropped.
    pub fn join_this_thread(&self) -> Membership {
        switch_to(Arc::as_ptr(&self.0));
        Membership(self.0.clone())
    }
}

/// A thread's work for a run's account; dropping it ends the charging (before the
/// thread's own teardown, which may outlive the account otherwise).
pub struct Membership(#[allow(dead_code)] Arc<Account>);

impl Drop for Membership {
    fn drop(&mut self) {
        switch_to(std::ptr::null());
    }
}

/// Gives the memory that ended runs freed back to the system. mimalloc keeps freed
/// pages for reuse, so without this the resident set a later run's `--max-memory`
/// watches (`tso_engine::Limits::max_memory`) would still hold an earlier run's.
pub fn return_freed_memory() {
    // SAFETY: `mi_collect` only walks mimalloc's own heaps; it may be called at any time.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

/// Runs `f` and returns its result with the most heap the run held at once: this
/// thread's allocations and those of every thread that joined through the `Joiner`.
pub fn peak_during<R>(f: impl FnOnce(&Joiner) -> R) -> (R, u64) {
    let account = Arc::new(Account::default());
    let previous = ACCOUNT.with(Cell::get);
    switch_to(Arc::as_ptr(&account));
    let joiner = Joiner(account.clone());
    let result = f(&joiner);
    drop(joiner);
    switch_to(previous);
    let peak = account.peak.load(Ordering::Relaxed).max(0) as u64;
    (result, peak)
}

#[cfg(test)]
mod tests {
    use super::peak_during;

    #[test]
    fn the_peak_counts_what_was_held_at_once_not_the_total() {
        let ((), peak) = peak_during(|_| {
            for _ in 0..10 {
                let v = std::hint::black_box(vec![0u8; 1 << 20]);
                drop(v);
            }
        });
        assert!((1 << 20..2 << 20).contains(&peak), "{peak}");
    }

    #[test]
    fn another_thread_does_not_count_unless_it_joins() {
        let hold = |join: Option<&super::Joiner>| {
            std::thread::scope(|s| {
                s.spawn(|| {
                    let _member = join.map(|j| j.join_this_thread());
                    std::hint::black_box(vec![0u8; 8 << 20])
                })
                .join()
                .map(drop)
                .ok();
            })
        };
        let ((), alone) = peak_during(|_| hold(None));
        assert!(alone < 1 << 20, "{alone}");
        let ((), joined) = peak_during(|j| hold(Some(j)));
        assert!((8 << 20..9 << 20).contains(&joined), "{joined}");
    }
}
