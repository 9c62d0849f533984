//! The store-buffer runtime: the `__tso_*` functions of [`crate::abi`] as engine
//! natives. They run atomically, keep the buffers as per-state data ([`TsoState`]) and
//! make their nondeterministic choices through the engine.

mod c11;
mod c11_writers;
mod drain;
mod env;
mod footprint;
mod natives;
mod observe;
mod state;

pub use c11::{register as register_c11, C11Options, C11State};
pub use drain::drained_states;
pub use observe::{Observation, ObservationLog};
pub use state::{Buffers, PendingStore, TsoState};

use tso_engine::Natives;

/// How the runtime simulates x86-TSO.
#[derive(Clone, Debug)]
pub struct RuntimeOptions {
    /// Maximum unflushed entries per thread; 0 = unbounded.
    pub sb_bound: u32,
    /// Bypass the buffers for objects no other thread can reach ("+d").
    pub dynamic_bypass: bool,
    /// Use the plain reference machine (any buffer may flush before any memory
    /// operation) instead of delayed flushing. For testing and measurement.
    pub reference_machine: bool,
    /// Sequential consistency on the instrumented program: every access goes straight
    /// to memory, so states have exactly the TSO run's shape (same program, same
    /// registers, same scheduling points) minus the buffering. `--robustness`
    /// compares the two.
    pub sequential: bool,
    /// Where to record store→load reorderings seen while a counterexample is replayed.
    pub observations: Option<ObservationLog>,
}

impl Default for RuntimeOptions {
    fn default() -> Self {
        RuntimeOptions {
            sb_bound: 32,
            dynamic_bypass: true,
            reference_machine: false,
            sequential: false,
            observations: None,
        }
    }
}

/// Register the `__tso_*` natives and the thread-exit hook for `opts`.
pub fn register(natives: &mut Natives, opts: &RuntimeOptions) {
    // Its natives model memory itself: what they read and write is the program's own
    // accesses (or none), not a library function's.
    natives.without_data_accesses(|n| natives::register(n, opts));
}
