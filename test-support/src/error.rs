//! Errors of declaring tests and of reading or writing a manifest.

use std::path::PathBuf;

/// Everything that can go wrong in this crate.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A variable cargo sets for build scripts is missing: not running inside build.rs.
    #[error("environment variable {0} is not set (is this running from a build script?)")]
    MissingEnv(&'static str),
    /// A declared test file or extra source does not exist.
    #[error("declared TSO test file {0} does not exist")]
    MissingFile(PathBuf),
    /// A test file whose extension says neither C nor C++, and no language was given.
    #[error("cannot tell whether {0} is C or C++ from its extension; use `language(...)`")]
    UnknownLanguage(PathBuf),
    /// Two declared test files share a file stem, so their tests would share names
    /// (`<package>::<stem>::<test>`).
    #[error("test files {} and {} would give their tests the same names (`{package}::{stem}::...`); rename one", first.display(), second.display())]
    DuplicateStem {
        package: String,
        stem: String,
        first: PathBuf,
        second: PathBuf,
    },
    /// A directory given to `Tests::dir` could not be listed.
    #[error("cannot list test directory {path}: {source}")]
    ListDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// cc could not work out the compiler and its flags for the given build.
    #[error("cc could not determine the compiler flags: {0}")]
    Cc(#[from] cc::Error),
    /// A flag from cc that needs a value came last, without one.
    #[error("compiler flag {0} is missing its value")]
    FlagWithoutValue(String),
    /// A compiler argument is not valid UTF-8.
    #[error("compiler argument {0:?} is not valid UTF-8")]
    NonUtf8Arg(std::ffi::OsString),
    /// Reading or writing the manifest file failed.
    #[error("cannot access manifest {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The manifest is not valid JSON for this format.
    #[error("manifest {path} is malformed: {source}")]
    Json {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    /// The manifest was written by an incompatible test-support.
    #[error("manifest {path} has format_version {found}, this reader understands versions 1 to {expected} (written by another test-support release: use the cargo-tso of the same release)")]
    UnsupportedVersion {
        path: PathBuf,
        found: u32,
        expected: u32,
    },
}
