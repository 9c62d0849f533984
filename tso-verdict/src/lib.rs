//! tso-verdict: the kinds of error a cargo-tso verdict names, defined once for the
//! checker (`tso-engine`, which reports them) and the build-script API
//! (`test-support`, whose `tso.h` lets a test expect one). Free of LLVM, so a plain
//! `cargo build` of a crate with TSO tests stays light.

use std::fmt;
use std::str::FromStr;

/// What went wrong in the program under test. Each is a verdict, never a panic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
    /// consistency cannot reach (`--robustness`, `TSO_TEST_ROBUST`).
    NotRobust,
    /// A branch, `switch` or `select` condition, an address, a divisor, a call target,
    /// an inspected library argument or the exit status that depends on bits never
    /// written (uninitialised stack or heap memory, `undef`).
    Uninitialized,
    /// Two conflicting accesses, at least one of them not atomic, that happens-before
    /// does not order (C11 5.1.2.4, C++ [intro.races]); `--races deny` only.
    DataRace,
}

/// Every kind.
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
    ErrorKind::Uninitialized,
    ErrorKind::DataRace,
];

/// The kinds a test may expect (`TSO_TEST_SHOULD_FAIL_WITH(name, kind)`), in the order
/// `tso.h` lists them: bugs in the program, not limits of the tool.
pub const EXPECTABLE_KINDS: &[ErrorKind] = &[
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
    ErrorKind::ExitStatus,
    ErrorKind::Uninitialized,
    ErrorKind::DataRace,
];

impl ErrorKind {
    /// The spelling in reports and JSON: `out-of-bounds`.
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
            ErrorKind::Uninitialized => "uninitialized",
            ErrorKind::DataRace => "data-race",
        }
    }

    /// The spelling in C identifiers (`tso.h`, test symbols): `out_of_bounds`.
    pub fn symbol_name(self) -> String {
        self.as_str().replace('-', "_")
    }

    /// Either spelling, `out-of-bounds` or `out_of_bounds`.
    pub fn parse(text: &str) -> Option<ErrorKind> {
        let dashed = text.replace('_', "-");
        ALL_KINDS.iter().copied().find(|k| k.as_str() == dashed)
    }

    /// Only the underscore spelling of an expectable kind (inside a symbol).
    pub fn from_symbol_name(text: &str) -> Option<ErrorKind> {
        EXPECTABLE_KINDS
            .iter()
            .copied()
            .find(|k| k.symbol_name() == text)
    }

    /// Unsupported constructs mean the tool could not check the program (exit 2),
    /// every other kind is a bug found in it (exit 1).
    pub fn is_tool_limitation(self) -> bool {
        matches!(self, ErrorKind::Unsupported)
    }

    /// Whether a test may declare this kind as its expected failure.
    pub fn is_expectable(self) -> bool {
        EXPECTABLE_KINDS.contains(&self)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that names no error kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKind(pub String);

impl fmt::Display for UnknownKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown failure kind `{}`", self.0)
    }
}

impl std::error::Error for UnknownKind {}

impl FromStr for ErrorKind {
    type Err = UnknownKind;

    fn from_str(text: &str) -> Result<ErrorKind, UnknownKind> {
        ErrorKind::parse(text).ok_or_else(|| UnknownKind(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips_through_both_spellings() {
        for &kind in ALL_KINDS {
            assert_eq!(ErrorKind::parse(kind.as_str()), Some(kind));
            assert_eq!(ErrorKind::parse(&kind.symbol_name()), Some(kind));
            assert_eq!(kind.as_str().parse::<ErrorKind>(), Ok(kind));
            assert!(!kind.symbol_name().contains('-'));
        }
        assert!("segfault".parse::<ErrorKind>().is_err());
    }

    #[test]
    fn expectable_kinds_are_bugs_not_tool_limits() {
        for &kind in EXPECTABLE_KINDS {
            assert!(!kind.is_tool_limitation());
            assert_eq!(ErrorKind::from_symbol_name(&kind.symbol_name()), Some(kind));
        }
        for kind in [
            ErrorKind::Unsupported,
            ErrorKind::StepLimit,
            ErrorKind::StoreToReleasedMemory,
        ] {
            assert!(!kind.is_expectable());
            assert_eq!(ErrorKind::from_symbol_name(&kind.symbol_name()), None);
        }
        assert_eq!(
            ErrorKind::from_symbol_name("out-of-bounds"),
            None,
            "dashes are not C"
        );
    }
}
