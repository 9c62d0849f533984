//! The C library functions the engine models, one module per family.

mod exit;
mod malloc;
mod printf;
mod stdio;
mod string;
mod verifier;

pub use printf::format as format_printf;

use crate::natives::Natives;

pub fn register(n: &mut Natives) {
    exit::register(n);
    malloc::register(n);
    stdio::register(n);
    string::register(n);
    verifier::register(n);
}
