//! tso-runtime: the x86-TSO store-buffer encoding.
//!
//! - [`instrument`]: the LLVM-to-LLVM pass that replaces memory operations by calls
//!   to the `__tso_*` functions of [`abi`].
//! - [`buffer`]: the store-buffer semantics (delayed flushing and the reference
//!   machine), independent of the engine.
//! - [`c11`]: the C11 (RC11) view machine for `--memory-model c11`, independent of
//!   the engine too; its natives are `runtime::register_c11`.
//! - [`runtime`]: those functions as engine natives, for either model.
//! - [`edit`]: source-level edits of memory orders and fences, applied to a module
//!   before the pass (the candidates of the C11 ordering suggestion).

pub mod abi;
pub mod buffer;
pub mod c11;
pub mod edit;
pub mod instrument;
pub mod runtime;
