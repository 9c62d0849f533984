//! Verdict-level errors: problems found in the program under test, and problems that
//! stop the tool from checking it.

use std::fmt;

/// What went wrong in the program under test. Each is a verdict, never a panic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    Assertion,
    Abort,
    Deadlock,
    OutOfBounds,
    UseAfterFree,
    DoubleFree,
    InvalidFree,
    NullDereference,
    DivisionByZero,
    PthreadMisuse,
    StackOverflow,
    NonTerminating,
    Unsupported,
    ExitStatus,
    /// A store buffer entry would land in released memory (a data race with free()).
    StoreToReleasedMemory,
    /// A per-step limit (--max-steps) was hit: not a verdict on the program.
    StepLimit,
    /// A state reachable under x86-TSO (with empty store buffers) that sequential
    /// consistency cannot reach (`--robustness`).
    NotRobust,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Assertion => "assertion",
            ErrorKind::Abort => "abort",
            ErrorKind::Deadlock => "deadlock",
            ErrorKind::OutOfBounds => "out-of-bounds",
            ErrorKind::UseAfterFree => "use-after-free",
            ErrorKind::DoubleFree => "double-free",
            ErrorKind::InvalidFree => "invalid-free",
            ErrorKind::NullDereference => "null-dereference",
            ErrorKind::DivisionByZero => "division-by-zero",
            ErrorKind::PthreadMisuse => "pthread-misuse",
            ErrorKind::StackOverflow => "stack-overflow",
            ErrorKind::NonTerminating => "non-terminating",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::ExitStatus => "exit-status",
            ErrorKind::StoreToReleasedMemory => "store-to-released-memory",
            ErrorKind::StepLimit => "step-limit",
            ErrorKind::NotRobust => "not-robust",
        }
    }

    pub fn parse(s: &str) -> Option<ErrorKind> {
        ALL_KINDS
            .iter()
            .copied()
            .find(|k| k.as_str() == s || k.as_str().replace('-', "_") == s)
    }

    /// Unsupported constructs mean the tool could not check the program (exit 2),
    /// every other kind is a bug found in it (exit 1).
    pub fn is_tool_limitation(self) -> bool {
        matches!(self, ErrorKind::Unsupported)
    }
}

pub const ALL_KINDS: &[ErrorKind] = &[
    ErrorKind::Assertion,
    ErrorKind::Abort,
    ErrorKind::Deadlock,
    ErrorKind::OutOfBounds,
    ErrorKind::UseAfterFree,
    ErrorKind::DoubleFree,
    ErrorKind::InvalidFree,
    ErrorKind::NullDereference,
    ErrorKind::DivisionByZero,
    ErrorKind::PthreadMisuse,
    ErrorKind::StackOverflow,
    ErrorKind::NonTerminating,
    ErrorKind::Unsupported,
    ErrorKind::ExitStatus,
    ErrorKind::StoreToReleasedMemory,
    ErrorKind::StepLimit,
    ErrorKind::NotRobust,
];

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error raised while executing one step of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub kind: ErrorKind,
    pub message: String,
    /// The thread whose step failed, once known.
    pub thread: Option<u32>,
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
    pub fn in_thread(mut self, tid: u32) -> Failure {
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
