//! The C library functions the engine models, one module per family.

mod ctype;
mod errno;
mod exit;
pub(crate) mod hidden;
mod malloc;
mod math;
mod printf;
mod process;
mod rand;
pub(crate) mod setjmp;
mod sort;
mod stdio;
mod string;
mod string_ext;
mod strtok;
mod time;
mod verifier;

use crate::natives::Natives;
pub(crate) use errno::set_errno;

pub(crate) fn register(n: &mut Natives) {
    exit::register(n);
    malloc::register(n);
    stdio::register(n);
    string::register(n);
    verifier::register(n);
    ctype::register(n);
    errno::register(n);
    math::register(n);
    rand::register(n);
    setjmp::register(n);
    sort::register(n);
    string_ext::register(n);
    strtok::register(n);
    time::register(n);
    process::register(n);
}
