//! A bounded single-producer/single-consumer queue of `i32`, implemented in C
//! (`csrc/spsc_ring.c`) and wrapped here so that the type system enforces "one
//! producer, one consumer". The C code's x86-TSO behaviour is checked by
//! `cargo tso test` with the tests in `tso-tests/`.

use std::cell::UnsafeCell;
use std::os::raw::c_int;
use std::sync::Arc;

/// Mirror of `struct spsc_ring` in `csrc/spsc_ring.h`.
#[repr(C)]
struct RawRing {
    head: usize,
    tail: usize,
    capacity: usize,
    slots: *mut c_int,
}

extern "C" {
    fn spsc_ring_init(ring: *mut RawRing, slots: *mut c_int, capacity: usize);
    fn spsc_ring_push(ring: *mut RawRing, value: c_int) -> bool;
    fn spsc_ring_pop(ring: *mut RawRing, value: *mut c_int) -> bool;
}

/// The ring and its slots, shared by both ends. Only the C code touches them after
/// initialisation, through atomic operations on the counters.
struct Shared {
    ring: UnsafeCell<RawRing>,
    // Kept alive for the ring's `slots` pointer; never accessed from Rust.
    _slots: Box<[UnsafeCell<c_int>]>,
}

// SAFETY: the C ring is designed for one pushing and one popping thread at a time;
// `Producer` and `Consumer` are the only handles and neither is `Clone` or `Sync`.
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

/// The pushing end.
pub struct Producer {
    shared: Arc<Shared>,
}

/// The popping end.
pub struct Consumer {
    shared: Arc<Shared>,
}

/// A ring holding up to `capacity` values, as its two ends.
pub fn channel(capacity: usize) -> (Producer, Consumer) {
    let slots: Box<[UnsafeCell<c_int>]> = (0..capacity).map(|_| UnsafeCell::new(0)).collect();
    let shared = Arc::new(Shared {
        ring: UnsafeCell::new(RawRing {
            head: 0,
            tail: 0,
            capacity: 0,
            slots: std::ptr::null_mut(),
        }),
        _slots: slots,
    });
    // UnsafeCell<c_int> has the layout of c_int, so the boxed slice is an int array.
    let slots_ptr = shared._slots.as_ptr() as *mut c_int;
    // SAFETY: nobody else holds the ring yet; slots_ptr points to `capacity` ints
    // that live as long as `shared`.
    unsafe { spsc_ring_init(shared.ring.get(), slots_ptr, capacity) };
    (
        Producer {
            shared: Arc::clone(&shared),
        },
        Consumer { shared },
    )
}

impl Producer {
    /// Appends `value`, or gives it back when the ring is full.
    pub fn push(&mut self, value: i32) -> Result<(), i32> {
        // SAFETY: `&mut self` makes this the only pushing thread.
        if unsafe { spsc_ring_push(self.shared.ring.get(), value) } {
            Ok(())
        } else {
            Err(value)
        }
    }
}

impl Consumer {
    /// Removes the oldest value, if any.
    pub fn pop(&mut self) -> Option<i32> {
        let mut value: c_int = 0;
        // SAFETY: `&mut self` makes this the only popping thread.
        unsafe { spsc_ring_pop(self.shared.ring.get(), &mut value) }.then_some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_out_in_order() {
        let (mut tx, mut rx) = channel(4);
        for v in [10, 20, 30] {
            tx.push(v).unwrap();
        }
        assert_eq!(rx.pop(), Some(10));
        assert_eq!(rx.pop(), Some(20));
        tx.push(40).unwrap();
        assert_eq!(rx.pop(), Some(30));
        assert_eq!(rx.pop(), Some(40));
        assert_eq!(rx.pop(), None);
    }

    #[test]
    fn full_ring_refuses_and_frees_up_after_pop() {
        let (mut tx, mut rx) = channel(2);
        tx.push(1).unwrap();
        tx.push(2).unwrap();
        assert_eq!(tx.push(3), Err(3));
        assert_eq!(rx.pop(), Some(1));
        tx.push(3).unwrap();
        assert_eq!(rx.pop(), Some(2));
        assert_eq!(rx.pop(), Some(3));
    }

    #[test]
    fn zero_capacity_ring_is_always_full_and_empty() {
        let (mut tx, mut rx) = channel(0);
        assert_eq!(tx.push(1), Err(1));
        assert_eq!(rx.pop(), None);
    }

    #[test]
    fn wraps_around_many_times() {
        let (mut tx, mut rx) = channel(3);
        for v in 0..1000 {
            tx.push(v).unwrap();
            assert_eq!(rx.pop(), Some(v));
        }
    }

    #[test]
    fn two_threads_transfer_everything_in_order() {
        const ITEMS: i32 = 200_000;
        let (mut tx, mut rx) = channel(8);
        let producer = std::thread::spawn(move || {
            for v in 0..ITEMS {
                let mut pending = v;
                while let Err(back) = tx.push(pending) {
                    pending = back;
                    std::hint::spin_loop();
                }
            }
        });
        let mut expected = 0;
        while expected < ITEMS {
            match rx.pop() {
                Some(v) => {
                    assert_eq!(v, expected);
                    expected += 1;
                }
                None => std::hint::spin_loop(),
            }
        }
        producer.join().unwrap();
        assert_eq!(rx.pop(), None);
    }
}
