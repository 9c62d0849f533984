//! tso-engine: an explicit-state model checker for LLVM IR under sequential consistency.
