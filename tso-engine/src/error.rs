//! Verdict-level errors: problems found in the program under test, and problems that
//! stop the tool from checking it.

use std::fmt;

// The kinds are defined once, in tso-verdict, shared with test-support (whose tests
// name the kind they expect).
pub use tso_verdict::ErrorKind;

/// An error raised while executing one step of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub kind: ErrorKind,
    pub message: String,
    /// The thread whose step failed, once known.
    pub(crate) thread: Option<u32>,
}

impl Failure {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
            thread: None,
        }
    }

    /// Record which thread failed (keeps the innermost answer).
    pub(crate) fn in_thread(mut self, tid: u32) -> Failure {
        self.thread.get_or_insert(tid);
        self
    }
    pub fn unsupported(message: impl Into<String>) -> Failure {
        Failure::new(ErrorKind::Unsupported, message)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)
    }
}

/// Why a module could not be loaded at all.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read {path}: {message}")]
    Read { path: String, message: String },
    #[error("invalid LLVM module {path}: {message}")]
    Invalid { path: String, message: String },
    #[error("no function `{0}` in the program")]
    NoEntry(String),
}

impl std::error::Error for Failure {}
