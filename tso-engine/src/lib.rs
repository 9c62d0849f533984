//! tso-engine: an explicit-state model checker for LLVM IR under sequential consistency.
//!
//! The engine never learns what TSO is: relaxed memory is encoded into the program by
//! tso-runtime, which plugs its `__tso_*` functions in through [`Natives`].
//!
//! Pipeline: `loader` translates bitcode once into the compact `ir`; `interp` runs one
//! thread's transition atomically; `explore` searches the state space, storing
//! canonical states in `store`; [`check`] wraps it all in one call.
//!
//! The public API is what tso-runtime, cargo-tso, the benchmark and the test suites
//! use, re-exported here; every module but [`resources`] is private to the crate
//! (`scripts/api-count.sh` counts the API).

mod bytes;
mod check;
mod cxx;
mod definedness;
mod error;
mod explore;
mod hooks;
mod interp;
mod ir;
mod libc;
mod loader;
mod memory;
mod models;
mod natives;
mod pthread;
mod race;
pub mod resources;
mod state;
mod store;
mod undefined;
mod value;
mod wide;

// Checking a program: load and translate a module, check it, read the report.
pub use check::{check, CheckOptions, CheckReport, RaceScreen, Verdict};
pub use error::{ErrorKind, Failure, LoadError};
pub use explore::diagnosis::{Diagnosis, Growing};
pub use explore::{
    Counterexample, Limits, ProgressFn, ScreenConflictHook, StateCheck, StateObserver, Stats,
    StopCheck, WorkerStart, GROWTH_AFTER,
};
pub use interp::{
    describe_address, describe_pointer, describe_scalar_at, Machine, MachineOptions, RaceAccess,
    RaceReport, TraceStep,
};
pub use ir::debug::is_system_header;
pub use ir::{Location, Program};
pub use loader::asm::{asm_effect, AsmEffect};
pub use loader::{instruction_location, load_file, parse_module, translate};
pub use race::RacePolicy;

// What a model of library functions (tso-runtime's natives) works with.
pub use definedness::smear;
pub use explore::advance_script;
pub use ir::MemOrder;
pub use loader::memory_order;
pub use memory::{Fragment, Memory};
pub use natives::{
    arg, arg_val, Access, AccessesFn, ChoiceKind, DataView, MessageEvent, MessageKey, NativeAccess,
    NativeCx, NativeResult, Natives, ProgramAccesses, SyncEvent, SyncHook, Visibility,
};
pub use state::{ExtState, State, ThreadId};
pub use value::{make_ptr, ptr_parts, Val};

// Comparing states, and the checks the test suites observe a search with.
pub use explore::commute::CommuteCheck;
pub use explore::roundtrip::{BlockedCheck, DecodeCheck, SymmetryCheck};
pub use store::{incremental_counts, Fingerprint, Fingerprinter};
