//! The store-buffer runtime: native implementations of the `__tso_*` functions on the
//! engine's native interface.

use tso_engine::natives::Natives;

/// How the runtime simulates x86-TSO.
#[derive(Clone, Debug)]
pub struct RuntimeOptions {
    /// Maximum unflushed entries per thread; 0 = unbounded.
    pub sb_bound: u32,
    /// Bypass the buffers for objects no other thread can reach ("+d").
    pub dynamic_bypass: bool,
    /// Use the plain reference machine (flush at any step) instead of delayed flushing.
    pub reference_machine: bool,
}

impl Default for RuntimeOptions {
    fn default() -> Self {
        RuntimeOptions { sb_bound: 32, dynamic_bypass: true, reference_machine: false }
    }
}

/// Register the `__tso_*` natives (and the thread-exit hook) for `opts`.
pub fn register(natives: &mut Natives, opts: &RuntimeOptions) {
    let _ = (natives, opts);
}
