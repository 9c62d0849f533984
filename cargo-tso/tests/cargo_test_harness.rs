//! End to end: per-group sources (an unsupported construct fails only the tests that
//! link it, and says which source brought it in), and the `cargo test` harness
//! (`test_support::harness_main!`) run by `cargo test` and `cargo nextest run`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{cargo_tso, fixtures, run, scratch, Run};

#[test]
fn an_unsupported_source_fails_only_the_group_that_links_it() {
    let mut cmd = cargo_tso();
    cmd.current_dir(fixtures().join("sources-ws"))
        .args(["tso", "test", "--test-threads", "1"]);
    let out = run(&mut cmd);
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("test fixture-sources::counting::counts_up ... ok"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("test fixture-sources::vendor::counts_cpus ... FAILED"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("inline asm \"cpuid\""),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(
            "brought in by sources/csrc/cpuid.c, which build.rs links into this test with `.source(...)`"
        ),
        "{}",
        out.stdout
    );
}

/// A directory holding only `cargo-tso` (this build's), for `PATH`.
fn bin_dir_with_cargo_tso() -> PathBuf {
    let dir = scratch("harness-bin");
    let link = dir.join("cargo-tso");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_cargo-tso"), &link).expect("symlink");
    dir
}

/// `cargo` in the harness fixture workspace, with this build's cargo-tso first on
/// `PATH` (or, with `with_cargo_tso` false, a `PATH` without any cargo-tso).
fn cargo_in_harness_ws(with_cargo_tso: bool) -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|dir| !dir.join("cargo-tso").exists())
        .collect();
    if with_cargo_tso {
        dirs.insert(0, bin_dir_with_cargo_tso());
    }
    cmd.current_dir(fixtures().join("harness-ws"))
        .env("PATH", std::env::join_paths(dirs).expect("PATH"))
        .env_remove("CARGO_TSO")
        .env("CARGO_TARGET_DIR", scratch("harness-target"))
        .env("CARGO_TSO_CACHE_DIR", scratch("cache"))
        .env("NO_COLOR", "1")
        .env("CI", "1");
    cmd
}

fn cargo_test(args: &[&str]) -> Run {
    run(cargo_in_harness_ws(true)
        .args(["test", "--test", "tso", "--"])
        .args(args))
}

const PREFIX: &str = "fixture-harness::cases::";

/// Whether stdout has `line`, spaces collapsed (libtest-mimic pads names to one width).
fn assert_line(out: &Run, line: &str) {
    let words = |l: &str| l.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        out.stdout.lines().any(|l| words(l) == line),
        "no line `{line}` in:\n{}{}",
        out.stdout,
        out.stderr
    );
}

#[test]
fn cargo_test_runs_each_tso_test_with_its_verdict() {
    let out = cargo_test(&["--test-threads", "1"]);
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    assert_line(&out, &format!("test {PREFIX}one_thread_passes ... ok"));
    assert_line(
        &out,
        &format!("test {PREFIX}store_buffering_fails ... FAILED"),
    );
    assert_line(
        &out,
        &format!("test {PREFIX}store_buffering_needs_tso ... ok"),
    );
    assert_line(&out, &format!("test {PREFIX}ignored_one ... ignored"));
    // The failure carries cargo-tso's explanation.
    assert!(
        out.stdout
            .contains("error[assertion]: assertion `r1 == 1 || r2 == 1` failed"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("test result: FAILED. 2 passed; 1 failed; 1 ignored"),
        "{}",
        out.stdout
    );
}

#[test]
fn cargo_test_filters_select_the_same_tests() {
    let out = cargo_test(&["needs_tso"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_line(
        &out,
        &format!("test {PREFIX}store_buffering_needs_tso ... ok"),
    );
    assert!(
        out.stdout
            .contains("1 passed; 0 failed; 0 ignored; 0 measured; 3 filtered out"),
        "{}",
        out.stdout
    );

    let out = cargo_test(&["--skip", "store_buffering_fails"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("2 passed; 0 failed; 1 ignored; 0 measured; 1 filtered out"),
        "{}",
        out.stdout
    );

    let out = cargo_test(&["--exact", &format!("{PREFIX}store_buffering_fails")]);
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("0 passed; 1 failed"), "{}", out.stdout);

    let out = cargo_test(&["--list"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    for name in [
        "one_thread_passes",
        "store_buffering_fails",
        "store_buffering_needs_tso",
        "ignored_one",
    ] {
        assert_line(&out, &format!("{PREFIX}{name}: test"));
    }
}

#[test]
fn the_peterson_example_runs_its_tso_tests_under_cargo_test() {
    let repository = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = run(cargo_in_harness_ws(true).current_dir(repository).args([
        "test",
        "-p",
        "peterson-lock",
        "--test",
        "tso",
    ]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    for name in ["fenced_lock_excludes", "unfenced_lock_fails_under_tso"] {
        assert_line(
            &out,
            &format!("test peterson-lock::mutual_exclusion::{name} ... ok"),
        );
    }
}

/// The harness's test binary, built by `cargo test --no-run`.
fn harness_binary() -> PathBuf {
    let out = run(cargo_in_harness_ws(true).args([
        "test",
        "--test",
        "tso",
        "--no-run",
        "--message-format=json",
    ]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    common::json_lines(&out.stdout)
        .iter()
        .filter(|m| m["target"]["name"] == "tso")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("the tso test executable")
}

#[test]
fn without_cargo_tso_the_tests_are_ignored_and_never_pass() {
    let binary = harness_binary();
    let bare = |args: &[&str]| {
        let mut cmd = Command::new(&binary);
        cmd.args(args)
            .env("PATH", Path::new("/nonexistent"))
            .env_remove("CARGO_TSO");
        run(&mut cmd)
    };
    let out = bare(&[]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("cargo-tso is not installed")
            && out.stderr.contains("cargo install --locked"),
        "{}",
        out.stderr
    );
    assert_line(
        &out,
        &format!("test {PREFIX}store_buffering_fails ... ignored"),
    );
    assert!(
        out.stdout.contains("0 passed; 0 failed; 4 ignored"),
        "{}",
        out.stdout
    );

    let out = bare(&["--include-ignored"]);
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("0 passed; 4 failed"), "{}", out.stdout);
}

#[test]
fn nextest_runs_them_with_the_same_names() {
    let probe = cargo_in_harness_ws(true)
        .args(["nextest", "--version"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        eprintln!("cargo-nextest is not installed: skipped");
        return;
    }
    // nextest's JUnit, in a store of this test's own.
    let store = scratch("nextest-store");
    let config = store.join("nextest.toml");
    std::fs::write(
        &config,
        format!(
            "[store]\ndir = \"{}\"\n[profile.default.junit]\npath = \"junit.xml\"\n",
            store.display()
        ),
    )
    .expect("nextest config");
    let out = run(cargo_in_harness_ws(true)
        .arg("nextest")
        .arg("run")
        .arg("--config-file")
        .arg(&config)
        .args(["--test", "tso", "--no-fail-fast", "--run-ignored", "all"]));
    assert_eq!(out.code, 100, "{}{}", out.stdout, out.stderr);
    // nextest reports on stderr: `PASS [ time] fixture-harness::tso fixture-harness::cases::...`.
    for (status, name) in [
        ("PASS", "one_thread_passes"),
        ("FAIL", "store_buffering_fails"),
        ("PASS", "store_buffering_needs_tso"),
        ("PASS", "ignored_one"),
    ] {
        assert!(
            out.stderr
                .lines()
                .any(|l| l.trim_start().starts_with(status)
                    && l.ends_with(&format!("{PREFIX}{name}"))),
            "no {status} for {name} in:\n{}",
            out.stderr
        );
    }
    // nextest's JUnit names them the same way.
    let junit = std::fs::read_to_string(store.join("default/junit.xml"))
        .unwrap_or_else(|e| panic!("nextest's junit.xml: {e}\n{}", out.stderr));
    for name in [
        "one_thread_passes",
        "store_buffering_fails",
        "store_buffering_needs_tso",
        "ignored_one",
    ] {
        assert!(
            junit.contains(&format!("name=\"{PREFIX}{name}\"")),
            "{name} not in {junit}"
        );
    }
    assert_eq!(junit.matches("<failure").count(), 1, "{junit}");
}
