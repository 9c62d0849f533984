//! How much heap one exploration used: a counting wrapper around the system allocator
//! that keeps, per thread, the bytes live now and their peak since a mark.
//!
//! Each check runs on a thread of its own (`pipeline::on_large_stack`, the test runner's
//! workers), and the engine allocates its store, search stack and states on that
//! thread, so the thread's peak is that test's memory: store plus search, unaffected by
//! tests that ran before it or beside it (unlike the process's high-water mark).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

pub struct CountingAllocator;

thread_local! {
    // Const-initialised cells without destructors: safe to touch from the allocator.
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

fn add(delta: i64) {
    // `try_with`: during thread teardown the slots may be gone; counting stops there.
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| {
            if now > peak.get() {
                peak.set(now);
            }
        });
    });
}

// SAFETY: every call is forwarded unchanged to `System`; the counters are plain
// thread-local cells that never allocate.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            add(layout.size() as i64);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            add(layout.size() as i64);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        add(-(layout.size() as i64));
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            add(new_size as i64 - layout.size() as i64);
        }
        p
    }
}

/// Runs `f` and returns its result with the most heap it held at once on this thread,
/// beyond what was live when it started.
pub fn peak_during<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let result = f();
    let peak = PEAK.with(Cell::get);
    (result, (peak - base).max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::peak_during;

    #[test]
    fn the_peak_counts_what_was_held_at_once_not_the_total() {
        let ((), peak) = peak_during(|| {
            for _ in 0..10 {
                let v = std::hint::black_box(vec![0u8; 1 << 20]);
                drop(v);
            }
        });
        assert!((1 << 20..2 << 20).contains(&peak), "{peak}");
    }

    #[test]
    fn another_thread_does_not_count() {
        let ((), peak) = peak_during(|| {
            std::thread::spawn(|| std::hint::black_box(vec![0u8; 8 << 20]))
                .join()
                .map(drop)
                .ok();
        });
        assert!(peak < 1 << 20, "{peak}");
    }
}
