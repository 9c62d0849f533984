//! tso-runtime: the x86-TSO store-buffer encoding.

pub mod abi;
pub mod runtime;
pub mod instrument;
