//! The C++ runtime pieces tests need when compiled with -fno-exceptions.

mod condvar;
mod guard;
mod new_delete;
mod runtime;
mod thread;

use crate::natives::Natives;

pub(crate) fn register(n: &mut Natives) {
    new_delete::register(n);
    n.without_data_accesses(|n| {
        thread::register(n);
        condvar::register(n);
        guard::register(n);
    });
    runtime::register(n);
}
