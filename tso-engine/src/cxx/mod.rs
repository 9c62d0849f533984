//! The C++ runtime pieces tests need when compiled with -fno-exceptions.

mod new_delete;

use crate::natives::Natives;

pub fn register(n: &mut Natives) {
    new_delete::register(n);
}
