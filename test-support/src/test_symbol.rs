//! The function names `tso.h` gives tests, and their parsing. The checker finds
//! tests by scanning a module's function names; these are the only encoding of a
//! test's name and expected outcome.

/// Prefix of an ordinary test: `__tso_test__<name>`.
pub const TEST_PREFIX: &str = "__tso_test__";
/// Prefix of an expected failure: `__tso_test_should_fail__<kind>__<name>`.
pub const SHOULD_FAIL_PREFIX: &str = "__tso_test_should_fail__";
/// Prefix of a failure that needs TSO:
/// `__tso_test_should_fail_under_tso__<kind>__<name>`.
pub const SHOULD_FAIL_UNDER_TSO_PREFIX: &str = "__tso_test_should_fail_under_tso__";
/// Prefix of a failure that needs C11 weakness (passes on x86):
/// `__tso_test_should_fail_under_c11__<kind>__<name>`.
pub const SHOULD_FAIL_UNDER_C11_PREFIX: &str = "__tso_test_should_fail_under_c11__";
/// Prefix of an ignored test: `__tso_test_ignore__<name>`.
pub const IGNORE_PREFIX: &str = "__tso_test_ignore__";
/// Prefix of a robustness test: `__tso_test_robust__<name>`.
pub const ROBUST_PREFIX: &str = "__tso_test_robust__";
/// The kind in a should-fail symbol meaning "any failure".
pub const ANY_KIND: &str = "any";

/// A test found in a compiled test file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TestSymbol {
    /// The name given to `TSO_TEST*(name)`.
    pub name: String,
    /// What the test is expected to do.
    pub expectation: Expectation,
    /// Declared with `TSO_TEST_IGNORE`: listed, not run unless asked for.
    pub ignored: bool,
}

/// Expected outcome of a test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Expectation {
    /// No error may be reachable.
    ShouldPass,
    /// Some error must be reachable; `Some(kind)` requires that kind.
    ShouldFail(Option<ErrorKind>),
    /// No error may be reachable, and every state reachable under x86-TSO with empty
    /// store buffers must be reachable under sequential consistency (`TSO_TEST_ROBUST`).
    Robust,
    /// Under x86-TSO some error (of this kind) must be reachable, and under
    /// sequential consistency none: the test documents a bug that needs store
    /// buffering. Under `--memory-model sc` it must pass.
    ShouldFailUnderTso(Option<ErrorKind>),
    /// Under C11 some error (of this kind) must be reachable, and under x86-TSO none
    /// (hence none under sequential consistency either): the test documents a bug
    /// that needs what C11 allows beyond x86. Under `--memory-model tso` or `sc` it
    /// must pass.
    ShouldFailUnderC11(Option<ErrorKind>),
}

impl Expectation {
    /// The kind a failing expectation names (`None`: any kind, or not a failure).
    pub fn failure_kind(self) -> Option<ErrorKind> {
        match self {
            Expectation::ShouldPass | Expectation::Robust => None,
            Expectation::ShouldFail(kind)
            | Expectation::ShouldFailUnderTso(kind)
            | Expectation::ShouldFailUnderC11(kind) => kind,
        }
    }
}

// The kinds a test can expect, as in `TSO_TEST_SHOULD_FAIL_WITH(name, kind)`, are the
// checker's own error kinds (one definition, in tso-verdict), of which
// `tso_verdict::EXPECTABLE_KINDS` may be expected.
use tso_verdict::ErrorKind;

impl TestSymbol {
    /// The function name `tso.h` gives this test (inverse of [`parse_test_symbol`]).
    pub fn symbol(&self) -> String {
        if self.ignored {
            return format!("{IGNORE_PREFIX}{}", self.name);
        }
        match self.expectation {
            Expectation::ShouldPass => format!("{TEST_PREFIX}{}", self.name),
            Expectation::Robust => format!("{ROBUST_PREFIX}{}", self.name),
            Expectation::ShouldFail(kind) => {
                let kind = kind.map_or_else(|| ANY_KIND.to_owned(), ErrorKind::symbol_name);
                format!("{SHOULD_FAIL_PREFIX}{kind}__{}", self.name)
            }
            Expectation::ShouldFailUnderTso(kind) => {
                let kind = kind.map_or_else(|| ANY_KIND.to_owned(), ErrorKind::symbol_name);
                format!("{SHOULD_FAIL_UNDER_TSO_PREFIX}{kind}__{}", self.name)
            }
            Expectation::ShouldFailUnderC11(kind) => {
                let kind = kind.map_or_else(|| ANY_KIND.to_owned(), ErrorKind::symbol_name);
                format!("{SHOULD_FAIL_UNDER_C11_PREFIX}{kind}__{}", self.name)
            }
        }
    }
}

/// Recognises a test function by its name; `None` for any other function
/// (including a should-fail symbol with an unknown kind, which `tso.h` rejects at
/// compile time, and names that are not C identifiers).
pub fn parse_test_symbol(sym: &str) -> Option<TestSymbol> {
    let (name, expectation, ignored) = if let Some(rest) = sym.strip_prefix(SHOULD_FAIL_PREFIX) {
        let (kind, name) = kind_and_name(rest)?;
        (name, Expectation::ShouldFail(kind), false)
    } else if let Some(name) = sym.strip_prefix(ROBUST_PREFIX) {
        (name, Expectation::Robust, false)
    } else if let Some(rest) = sym.strip_prefix(SHOULD_FAIL_UNDER_TSO_PREFIX) {
        let (kind, name) = kind_and_name(rest)?;
        (name, Expectation::ShouldFailUnderTso(kind), false)
    } else if let Some(rest) = sym.strip_prefix(SHOULD_FAIL_UNDER_C11_PREFIX) {
        let (kind, name) = kind_and_name(rest)?;
        (name, Expectation::ShouldFailUnderC11(kind), false)
    } else if let Some(name) = sym.strip_prefix(IGNORE_PREFIX) {
        (name, Expectation::ShouldPass, true)
    } else if let Some(name) = sym.strip_prefix(TEST_PREFIX) {
        (name, Expectation::ShouldPass, false)
    } else {
        return None;
    };
    if !is_identifier_tail(name) {
        return None;
    }
    Some(TestSymbol {
        name: name.to_owned(),
        expectation,
        ignored,
    })
}

/// `<kind>__<name>` of a should-fail symbol; `None` for an unknown kind. Only the
/// underscore spelling of a kind is valid inside a symbol.
fn kind_and_name(rest: &str) -> Option<(Option<ErrorKind>, &str)> {
    let (kind, name) = rest.split_once("__")?;
    let kind = if kind == ANY_KIND {
        None
    } else {
        Some(ErrorKind::from_symbol_name(kind)?)
    };
    Some((kind, name))
}

/// A test name pasted after a prefix: non-empty, only identifier characters.
fn is_identifier_tail(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use tso_verdict::EXPECTABLE_KINDS;

    #[test]
    fn ordinary_test() {
        let t = parse_test_symbol("__tso_test__fifo_order").unwrap();
        assert_eq!(t.name, "fifo_order");
        assert_eq!(t.expectation, Expectation::ShouldPass);
        assert!(!t.ignored);
    }

    #[test]
    fn should_fail_any() {
        let t = parse_test_symbol("__tso_test_should_fail__any__race").unwrap();
        assert_eq!(t.name, "race");
        assert_eq!(t.expectation, Expectation::ShouldFail(None));
    }

    #[test]
    fn should_fail_with_multiword_kind_and_name() {
        let t = parse_test_symbol("__tso_test_should_fail__use_after_free__free__twice").unwrap();
        assert_eq!(t.name, "free__twice");
        assert_eq!(
            t.expectation,
            Expectation::ShouldFail(Some(ErrorKind::UseAfterFree))
        );
    }

    #[test]
    fn robust_test_round_trips() {
        let t = parse_test_symbol("__tso_test_robust__ring").unwrap();
        assert_eq!(t.name, "ring");
        assert_eq!(t.expectation, Expectation::Robust);
        assert!(!t.ignored);
        assert_eq!(t.symbol(), "__tso_test_robust__ring");
    }

    #[test]
    fn should_fail_under_tso() {
        let t = parse_test_symbol("__tso_test_should_fail_under_tso__assertion__sb").unwrap();
        assert_eq!(t.name, "sb");
        assert_eq!(
            t.expectation,
            Expectation::ShouldFailUnderTso(Some(ErrorKind::Assertion))
        );
        let t = parse_test_symbol("__tso_test_should_fail_under_tso__any__sb").unwrap();
        assert_eq!(t.expectation, Expectation::ShouldFailUnderTso(None));
        assert_eq!(
            parse_test_symbol("__tso_test_should_fail_under_tso__bogus__x"),
            None
        );
    }

    #[test]
    fn should_fail_under_c11() {
        let t = parse_test_symbol("__tso_test_should_fail_under_c11__assertion__mp").unwrap();
        assert_eq!(t.name, "mp");
        assert_eq!(
            t.expectation,
            Expectation::ShouldFailUnderC11(Some(ErrorKind::Assertion))
        );
        let t = parse_test_symbol("__tso_test_should_fail_under_c11__any__mp").unwrap();
        assert_eq!(t.expectation, Expectation::ShouldFailUnderC11(None));
        assert_eq!(t.symbol(), "__tso_test_should_fail_under_c11__any__mp");
        assert_eq!(
            parse_test_symbol("__tso_test_should_fail_under_c11__bogus__x"),
            None
        );
    }

    #[test]
    fn ignored_test() {
        let t = parse_test_symbol("__tso_test_ignore__slow").unwrap();
        assert_eq!(t.name, "slow");
        assert!(t.ignored);
    }

    #[test]
    fn non_tests_and_malformed_names_are_rejected() {
        for sym in [
            "main",
            "tso_choose",
            "__tso_test__",
            "__tso_test_should_fail__any",
            "__tso_test_should_fail__any__",
            "__tso_test_should_fail__bogus__x",
            "__tso_test_should_fail__out-of-bounds__x",
            "__tso_test_ignore__",
            "__tso_test__a.b",
            "_Z12__tso_test__xv",
        ] {
            assert_eq!(parse_test_symbol(sym), None, "{sym}");
        }
    }

    #[test]
    fn every_kind_round_trips_through_its_symbol() {
        for &kind in EXPECTABLE_KINDS {
            for expectation in [
                Expectation::ShouldFail(Some(kind)),
                Expectation::ShouldFailUnderTso(Some(kind)),
                Expectation::ShouldFailUnderC11(Some(kind)),
            ] {
                let test = TestSymbol {
                    name: "t".into(),
                    expectation,
                    ignored: false,
                };
                assert_eq!(parse_test_symbol(&test.symbol()), Some(test));
            }
            assert_eq!(kind.as_str().parse::<ErrorKind>(), Ok(kind));
            assert_eq!(kind.as_str(), kind.symbol_name().replace('_', "-"));
        }
    }

    #[test]
    fn ordinary_test_named_like_a_prefix_stays_ordinary() {
        let t = parse_test_symbol("__tso_test__should_fail__any__x").unwrap();
        assert_eq!(t.name, "should_fail__any__x");
        assert_eq!(t.expectation, Expectation::ShouldPass);
    }
}
