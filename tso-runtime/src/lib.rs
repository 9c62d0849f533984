//! tso-runtime: the x86-TSO store-buffer encoding.
pub mod buffer;
