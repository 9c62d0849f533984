//! Turning run outcomes into text for people and JSON for tools; shared by `check`
//! and `test`.

pub mod failure;
pub mod fences;
pub mod figures;
pub mod json;
pub mod paths;
pub mod source;
pub mod trace;

#[cfg(test)]
mod snapshots;
