//! POSIX threads, modelled natively. Synchronisation objects keep their whole state in
//! the program's own memory (the pthread_*_t bytes), so it is part of the state and
//! static initialisers (all zero) just work.

mod mutex;
mod thread;

use crate::natives::Natives;

pub fn register(n: &mut Natives) {
    thread::register(n);
    mutex::register(n);
}
