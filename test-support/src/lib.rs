//! test-support: declare C/C++ tests for `cargo tso test` from a build script.
//!
//! A build script declares test files with [`Tests`] (optionally handing over the
//! crate's `cc::Build` so the tests are compiled exactly like the library); this
//! writes `$OUT_DIR/tso-tests.json`, a [`Manifest`], and compiles nothing. Test
//! files include `tso.h` ([`TSO_H`], found in [`include_dir`]) and mark tests with
//! `TSO_TEST(name)`; the checker finds them by their function names, which
//! [`parse_test_symbol`] decodes.
//!
//! With the `harness` feature, `harness_main!` makes a `harness = false` test target
//! that runs the TSO tests under `cargo test` and `cargo nextest run` (see `harness`).

// The build-script example shows a whole `build.rs`, `fn main` included.
#![allow(clippy::needless_doctest_main)]

mod compile_flags;
mod declaration;
mod error;
#[cfg(feature = "harness")]
pub mod harness;
mod manifest;
mod test_symbol;

use std::path::PathBuf;

pub use compile_flags::CompileSettings;
pub use declaration::{emit_all, FileOptions, Tests};
pub use error::Error;
pub use manifest::{
    Budget, Define, Language, Manifest, MemoryModel, Races, TestFile, FORMAT_VERSION,
    MANIFEST_FILE_NAME,
};
pub use test_symbol::{
    parse_test_symbol, Expectation, TestSymbol, ANY_KIND, IGNORE_PREFIX, SHOULD_FAIL_PREFIX,
    SHOULD_FAIL_UNDER_C11_PREFIX, SHOULD_FAIL_UNDER_TSO_PREFIX, TEST_PREFIX,
};
pub use tso_verdict::{ErrorKind, UnknownKind, EXPECTABLE_KINDS};

/// The text of `tso.h`, for tools that write it out themselves.
pub const TSO_H: &str = include_str!("../include/tso.h");

/// The directory holding `tso.h` (inside this crate's sources).
pub fn include_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("include")
}
