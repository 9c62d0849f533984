//! A pair of `i32`s behind a C++17 seqlock (`csrc/seqlock.hpp`, `std::atomic`):
//! one [`Writer`], any number of [`Reader`]s that never see a half-written pair.
//! The C++ code's x86-TSO behaviour is checked by `cargo tso test` with
//! `tso-tests/torn_read.cpp` (a writer and a reader `std::thread`).

use std::os::raw::c_int;
use std::ptr::NonNull;
use std::sync::Arc;

/// Opaque `SeqlockPair` from C++.
#[repr(C)]
struct RawPair {
    _opaque: [u8; 0],
}

extern "C" {
    fn seqlock_pair_new(first: c_int, second: c_int) -> *mut RawPair;
    fn seqlock_pair_free(pair: *mut RawPair);
    fn seqlock_pair_write(pair: *mut RawPair, first: c_int, second: c_int);
    fn seqlock_pair_try_read(pair: *const RawPair, first: *mut c_int, second: *mut c_int) -> bool;
    fn seqlock_pair_read(pair: *const RawPair, first: *mut c_int, second: *mut c_int);
}

/// The C++ allocation failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfMemory;

impl std::fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("out of memory allocating a seqlock")
    }
}

impl std::error::Error for OutOfMemory {}

/// Owns the C++ object.
struct Shared(NonNull<RawPair>);

// SAFETY: SeqlockPair is made of std::atomics; concurrent readers are fine and the
// single writer is enforced by `Writer` not being Clone.
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

impl Drop for Shared {
    fn drop(&mut self) {
        // SAFETY: allocated by seqlock_pair_new, freed once, no handle remains.
        unsafe { seqlock_pair_free(self.0.as_ptr()) };
    }
}

/// The one writing handle.
pub struct Writer {
    shared: Arc<Shared>,
}

/// A reading handle; clone it for more readers.
#[derive(Clone)]
pub struct Reader {
    shared: Arc<Shared>,
}

/// A seqlock holding `(first, second)`, as its writer and a first reader.
pub fn pair(first: i32, second: i32) -> Result<(Writer, Reader), OutOfMemory> {
    // SAFETY: plain constructor call.
    let raw = unsafe { seqlock_pair_new(first, second) };
    let shared = Arc::new(Shared(NonNull::new(raw).ok_or(OutOfMemory)?));
    Ok((
        Writer {
            shared: Arc::clone(&shared),
        },
        Reader { shared },
    ))
}

impl Writer {
    /// Replaces the pair; readers see either the old or the new pair, never a mix.
    pub fn write(&mut self, first: i32, second: i32) {
        // SAFETY: `&mut self` on the only Writer makes this the only writing thread.
        unsafe { seqlock_pair_write(self.shared.0.as_ptr(), first, second) };
    }
}

impl Reader {
    /// One read attempt; `None` when it overlapped a write.
    pub fn try_read(&self) -> Option<(i32, i32)> {
        let (mut first, mut second) = (0, 0);
        // SAFETY: the object lives while `shared` does; reads are atomic.
        unsafe { seqlock_pair_try_read(self.shared.0.as_ptr(), &mut first, &mut second) }
            .then_some((first, second))
    }

    /// Reads the current pair, retrying while a write is in progress.
    pub fn read(&self) -> (i32, i32) {
        let (mut first, mut second) = (0, 0);
        // SAFETY: as in `try_read`.
        unsafe { seqlock_pair_read(self.shared.0.as_ptr(), &mut first, &mut second) };
        (first, second)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_see_the_latest_write() {
        let (mut writer, reader) = pair(1, 2).unwrap();
        assert_eq!(reader.read(), (1, 2));
        writer.write(3, 4);
        assert_eq!(reader.try_read(), Some((3, 4)));
        assert_eq!(reader.clone().read(), (3, 4));
    }

    #[test]
    fn concurrent_reader_never_sees_a_torn_pair() {
        const WRITES: i32 = 100_000;
        let (mut writer, reader) = pair(0, 0).unwrap();
        let writing = std::thread::spawn(move || {
            for i in 1..=WRITES {
                writer.write(i, -i);
            }
        });
        let mut last = 0;
        loop {
            let (first, second) = reader.read();
            assert_eq!(first, -second, "torn pair");
            assert!(first >= last, "went back in time: {first} after {last}");
            last = first;
            if first == WRITES {
                break;
            }
        }
        writing.join().unwrap();
    }
}
