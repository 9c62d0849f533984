//! A one-shot message handoff implemented in C (`csrc/handoff.c`) and wrapped here.
//! Its memory orders are checked under x86-TSO and under C11 by `cargo tso test`
//! with the tests in `tso-tests/`.

use std::os::raw::c_int;

/// Mirror of `struct handoff` in `csrc/handoff.h` (`atomic_int`, `atomic_bool`).
#[repr(C)]
pub struct Handoff {
    message: std::sync::atomic::AtomicI32,
    ready: std::sync::atomic::AtomicBool,
}

extern "C" {
    fn handoff_init(h: *mut Handoff);
    fn handoff_publish(h: *mut Handoff, message: c_int);
    fn handoff_receive(h: *mut Handoff, message: *mut c_int) -> bool;
}

impl Handoff {
    pub fn new() -> Handoff {
        let mut h = Handoff {
            message: Default::default(),
            ready: Default::default(),
        };
        // SAFETY: `h` is a valid, exclusively borrowed `struct handoff`.
        unsafe { handoff_init(&mut h) };
        h
    }

    /// Publishes `message` (once).
    pub fn publish(&self, message: i32) {
        // SAFETY: the C code only does atomic operations on the shared fields.
        unsafe { handoff_publish(self as *const Handoff as *mut Handoff, message) }
    }

    /// The message, once it has been published.
    pub fn receive(&self) -> Option<i32> {
        let mut message: c_int = 0;
        // SAFETY: as in `publish`; `message` is a valid out-pointer.
        let ready =
            unsafe { handoff_receive(self as *const Handoff as *mut Handoff, &mut message) };
        ready.then_some(message)
    }
}

impl Default for Handoff {
    fn default() -> Handoff {
        Handoff::new()
    }
}

#[cfg(test)]
mod tests {
    use super::Handoff;

    #[test]
    fn a_published_message_is_received() {
        let h = Handoff::new();
        assert_eq!(h.receive(), None);
        std::thread::scope(|s| {
            s.spawn(|| h.publish(42));
        });
        assert_eq!(h.receive(), Some(42));
    }
}
