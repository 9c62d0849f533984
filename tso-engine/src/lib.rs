//! tso-engine: an explicit-state model checker for LLVM IR under sequential consistency.
//!
//! The engine never learns what TSO is: relaxed memory is encoded into the program by
//! tso-runtime, which plugs its `__tso_*` functions in through [`natives`].
//!
//! Pipeline: [`loader`] translates bitcode once into the compact [`ir`]; [`interp`]
//! runs one thread's transition atomically; [`explore`] searches the state space,
//! storing canonical states in [`store`]; [`check`] wraps it all in one call.

mod bytes;
mod check;
pub(crate) mod cxx;
pub mod definedness;
pub(crate) mod error;
pub mod explore;
pub(crate) mod hooks;
pub mod interp;
pub mod ir;
pub(crate) mod libc;
pub mod loader;
pub mod memory;
mod models;
pub mod natives;
pub(crate) mod pthread;
pub mod race;
pub mod resources;
pub mod state;
pub mod store;
pub(crate) mod undefined;
pub mod value;
pub(crate) mod wide;

pub use check::{check, CheckOptions, CheckReport, RaceScreen, Verdict};
pub use error::{ErrorKind, Failure, LoadError};
pub use interp::TraceStep;
pub use ir::Location;
pub use natives::Natives;
