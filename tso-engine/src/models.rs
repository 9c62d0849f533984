//! The library models in one natives table. The models (`libc`, `pthread`, `cxx`)
//! register themselves from above; the table (`natives`) knows none of them.

use crate::natives::Natives;

impl Natives {
    /// The C library, pthreads, C++ runtime and verifier functions the engine models.
    pub fn standard() -> Natives {
        let mut n = Natives::empty();
        crate::libc::register(&mut n);
        n.without_data_accesses(crate::pthread::register);
        crate::cxx::register(&mut n);
        n
    }
}
