//! `tso.h` compiles as C11 and C++17 with gcc and clang-19, and the test functions
//! it defines carry the symbols `parse_test_symbol` decodes.

use std::path::{Path, PathBuf};
use std::process::Command;

use test_support::{include_dir, parse_test_symbol, ErrorKind, Expectation, TestSymbol};

const TESTS_SOURCE: &str = r#"
#include <tso.h>
#include <stddef.h>
static int shared;
TSO_TEST(plain) { shared = tso_choose(2); TSO_ASSERT(shared < 2); }
TSO_TEST_SHOULD_FAIL(any_failure) { TSO_ASSERT(shared == 7); }
static int cells[1];
TSO_TEST_SHOULD_FAIL_WITH(bad_index, out_of_bounds) { cells[shared + 1] = 0; }
TSO_TEST_IGNORE(slow) { }
TSO_TEST_ROBUST(robust_one) { shared = 1; }
TSO_TEST_SHOULD_FAIL_UNDER_TSO(needs_tso) { }
TSO_TEST_SHOULD_FAIL_UNDER_TSO_WITH(needs_tso_kind, assertion) { }
TSO_TEST_SHOULD_FAIL_UNDER_C11(needs_c11) { }
TSO_TEST_SHOULD_FAIL_UNDER_C11_WITH(needs_c11_kind, deadlock) { }
"#;

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tso-header-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Compiles `source` as `file_name` to an object; returns it, or the compiler's stderr.
fn compile(compiler: &str, std: &str, file_name: &str, source: &str) -> Result<PathBuf, String> {
    let dir = scratch(&format!("{compiler}-{std}"));
    let src = dir.join(file_name);
    std::fs::write(&src, source).unwrap();
    let obj = dir.join("tests.o");
    let out = Command::new(compiler)
        .arg(format!("-std={std}"))
        .args(["-Wall", "-Wextra", "-Werror", "-c", "-O2", "-I"])
        .arg(include_dir())
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {compiler}: {e}"));
    if out.status.success() {
        Ok(obj)
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The tests among the object's defined text symbols, sorted by name.
fn tests_in(obj: &Path) -> Vec<TestSymbol> {
    let out = Command::new("nm")
        .arg("--defined-only")
        .arg(obj)
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut tests: Vec<TestSymbol> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().last())
        .filter_map(parse_test_symbol)
        .collect();
    tests.sort_by(|a, b| a.name.cmp(&b.name));
    tests
}

fn expected_tests() -> Vec<TestSymbol> {
    let test = |name: &str, expectation, ignored| TestSymbol {
        name: name.into(),
        expectation,
        ignored,
    };
    vec![
        test("any_failure", Expectation::ShouldFail(None), false),
        test(
            "bad_index",
            Expectation::ShouldFail(Some(ErrorKind::OutOfBounds)),
            false,
        ),
        test("needs_c11", Expectation::ShouldFailUnderC11(None), false),
        test(
            "needs_c11_kind",
            Expectation::ShouldFailUnderC11(Some(ErrorKind::Deadlock)),
            false,
        ),
        test("needs_tso", Expectation::ShouldFailUnderTso(None), false),
        test(
            "needs_tso_kind",
            Expectation::ShouldFailUnderTso(Some(ErrorKind::Assertion)),
            false,
        ),
        test("plain", Expectation::ShouldPass, false),
        test("robust_one", Expectation::Robust, false),
        test("slow", Expectation::ShouldPass, true),
    ]
}

fn check_compiler(compiler: &str) {
    for (std, file) in [("c11", "t.c"), ("c++17", "t.cpp")] {
        let obj = compile(compiler, std, file, TESTS_SOURCE)
            .unwrap_or_else(|err| panic!("{compiler} -std={std}: {err}"));
        assert_eq!(tests_in(&obj), expected_tests(), "{compiler} -std={std}");
    }
}

#[test]
fn gcc_compiles_header_and_tests_get_their_symbols() {
    check_compiler("gcc");
}

#[test]
fn clang_19_compiles_header_and_tests_get_their_symbols() {
    check_compiler("clang-19");
}

#[test]
fn unknown_failure_kind_is_a_compile_error() {
    for source in [
        "#include <tso.h>\nTSO_TEST_SHOULD_FAIL_WITH(t, segfault) { }\n",
        "#include <tso.h>\nTSO_TEST_SHOULD_FAIL_UNDER_TSO_WITH(t, segfault) { }\n",
    ] {
        for (std, file) in [("c11", "k.c"), ("c++17", "k.cpp")] {
            let err = compile("gcc", std, file, source).expect_err("unknown kind accepted");
            assert!(err.contains("segfault"), "{err}");
        }
    }
}

#[test]
fn exported_header_text_is_the_file() {
    let on_disk = std::fs::read_to_string(include_dir().join("tso.h")).unwrap();
    assert_eq!(on_disk, test_support::TSO_H);
}

/// `tso.h` accepts exactly the kinds a test may expect (tso-verdict's list).
#[test]
fn header_lists_exactly_the_expectable_kinds() {
    let listed: Vec<String> = test_support::TSO_H
        .lines()
        .filter_map(|l| l.trim().strip_prefix("tso_failure_kind__"))
        .map(|k| k.trim_end_matches(',').to_owned())
        .filter(|k| k != "any")
        .collect();
    let expectable: Vec<String> = test_support::EXPECTABLE_KINDS
        .iter()
        .map(|k| k.symbol_name())
        .collect();
    assert_eq!(listed, expectable);
}
