//! `cargo tso test` with `cargo test` and nextest habits (issue 10), end to end on the
//! fixture workspace: libtest's flags after `--`, cargo's selection/feature/profile
//! flags, fail-fast, opt levels, TSO-only expected failures, bound sweeps, sharding,
//! JUnit and per-test memory.

mod common;

use std::collections::BTreeSet;

use common::{event, finished_events as finished, json_lines, mask, run, sc, scratch, test};

/// The names `--list` prints.
fn listed(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .map(str::to_owned)
        .collect()
}

// 1. libtest's arguments after `--`.

#[test]
fn test_threads_after_the_separator_still_runs_the_failing_tests() {
    let out = run(test()
        .args(["--workspace"])
        .args(sc())
        .args(["--", "--test-threads", "1"]));
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("test fixture-basic::counters::lost_update ... FAILED"),
        "{}",
        out.stdout
    );
}

#[test]
fn unknown_flags_after_the_separator_exit_2() {
    for bogus in ["--bogus", "-x", "--bench"] {
        let out = run(test().args(["--workspace", "--", bogus]));
        assert_eq!(out.code, 2, "{bogus}: {}{}", out.stdout, out.stderr);
        assert!(out.stderr.contains(bogus), "{bogus}: {}", out.stderr);
        assert!(!out.stdout.contains("running"), "ran tests: {}", out.stdout);
    }
}

#[test]
fn libtest_selection_flags_after_the_separator() {
    let out = run(test().args(["-p", "fixture-basic"]).args(sc()).args([
        "--",
        "--include-ignored",
        "counters::slow",
    ]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("test fixture-basic::counters::slow_one ... ok"),
        "{}",
        out.stdout
    );
    let out = run(test().args([
        "--workspace",
        "--",
        "--exact",
        "fixture-litmus::store_buffering::plain",
        "--list",
    ]));
    assert_eq!(
        listed(&out.stdout),
        ["fixture-litmus::store_buffering::plain"]
    );
    let out = run(test().args([
        "-p",
        "fixture-litmus",
        "--",
        "--skip",
        "plain",
        "--skip",
        "padded",
        "--list",
    ]));
    assert_eq!(
        listed(&out.stdout),
        ["fixture-litmus::store_buffering::fenced"]
    );
}

#[test]
fn nocapture_and_show_output_print_what_passing_tests_printed() {
    for flag in ["--nocapture", "--show-output"] {
        let out = run(test()
            .args(["-p", "fixture-basic", "program"])
            .args(sc())
            .args(["--", flag]));
        assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
        assert!(
            out.stdout.contains(
                "successes:\n\n---- fixture-basic::program stdout ----\noutput:\n  | program ran\n"
            ),
            "{flag}: {}",
            out.stdout
        );
    }
}

#[test]
fn a_filter_that_matches_nothing_is_warned_about() {
    let out = run(test()
        .args(["-p", "fixture-litmus"])
        .args(sc())
        .args(["--", "no_such_test"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr
            .contains("warning: no test matches the filter `no_such_test`"),
        "{}",
        out.stderr
    );
    assert!(
        out.stdout
            .contains("0 passed; 0 failed; 0 ignored; 0 measured; 3 filtered out"),
        "{}",
        out.stdout
    );
    let out = run(test().args(["-p", "fixture-litmus", "plain", "--list"]));
    assert!(!out.stderr.contains("warning"), "{}", out.stderr);
}

// 2. cargo's package, feature and profile selection.

#[test]
fn exclude_leaves_packages_out_of_the_workspace() {
    let out = run(test().args([
        "--workspace",
        "--exclude",
        "fixture-basic",
        "--exclude",
        "fixture-broken",
        "--exclude",
        "fixture-ci",
        "--list",
        "--locked",
        "--offline",
    ]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        listed(&out.stdout),
        [
            "fixture-litmus::store_buffering::plain",
            "fixture-litmus::store_buffering::padded",
            "fixture-litmus::store_buffering::fenced"
        ]
    );
    let out = run(test().args(["--exclude", "fixture-basic", "--list"]));
    assert_eq!(out.code, 2, "--exclude needs --workspace: {}", out.stderr);
    let out = run(test().args(["--workspace", "--exclude", "no-such-package", "--list"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("warning: excluded package `no-such-package` not found"),
        "{}",
        out.stderr
    );
}

#[test]
fn features_reach_the_build_script() {
    let out = run(test().args(["-p", "fixture-ci", "strict_feature"]));
    assert_eq!(
        out.code, 101,
        "without the feature: {}{}",
        out.stdout, out.stderr
    );
    let out = run(test().args(["-p", "fixture-ci", "strict_feature", "--features", "strict"]));
    assert_eq!(
        out.code, 0,
        "with --features strict: {}{}",
        out.stdout, out.stderr
    );
    let out = run(test().args(["-p", "fixture-ci", "strict_feature", "--all-features"]));
    assert_eq!(
        out.code, 0,
        "with --all-features: {}{}",
        out.stdout, out.stderr
    );
}

#[test]
fn the_release_profile_sets_the_opt_level_cc_uses() {
    let opt_level = |extra: &[&str]| {
        let out = run(test()
            .args([
                "-p",
                "fixture-ci",
                "--features",
                "strict",
                "--format",
                "json",
                "strict_feature",
            ])
            .args(extra));
        assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
        event(
            &finished(&out.stdout),
            "fixture-ci::features::strict_feature",
        )["opt_level"]
            .clone()
    };
    assert_eq!(opt_level(&[]), "0", "dev profile");
    assert_eq!(opt_level(&["--release"]), "3", "release profile");
}

// 3. Fail-fast.

#[test]
fn fail_fast_stops_after_the_first_failure_and_no_fail_fast_runs_all() {
    let out = run(test()
        .args(["-p", "fixture-basic", "--fail-fast"])
        .args(sc()));
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("test fixture-basic::counters::lost_update ... FAILED"),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout.contains("test fixture-basic::program"),
        "ran on: {}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("note: 5 tests not run: --fail-fast stopped the run after a failure"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("1 passed; 1 failed; 1 ignored"),
        "{}",
        out.stdout
    );
    let out = run(test()
        .args(["-p", "fixture-basic", "--no-fail-fast"])
        .args(sc()));
    assert_eq!(out.code, 101);
    assert!(
        out.stdout.contains("test fixture-basic::program ... ok"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("4 passed; 3 failed; 1 ignored"),
        "{}",
        out.stdout
    );
}

// 4. Optimisation as the user built it.

#[test]
fn a_cc_build_with_opt_level_2_runs_its_tests_at_o2() {
    let out = run(test().args(["-p", "fixture-ci", "built_at_o2"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let line = out
        .stdout
        .lines()
        .find(|l| l.contains("built_at_o2 ... "))
        .unwrap_or_default();
    assert!(
        line.starts_with("test fixture-ci::optimised::built_at_o2 ... ok (")
            && line.ends_with(", -O2)"),
        "{line}"
    );
    let out = run(test().args(["-p", "fixture-ci", "built_at_o2", "--format", "json"]));
    assert_eq!(
        event(&finished(&out.stdout), "fixture-ci::optimised::built_at_o2")["opt_level"],
        "2"
    );
    // -O overrides the build's level.
    let out = run(test().args(["-p", "fixture-ci", "built_at_o2", "-O", "0"]));
    assert_eq!(
        out.code, 101,
        "at -O0 the test sees no __OPTIMIZE__: {}",
        out.stdout
    );
    let out = run(test().args(["-p", "fixture-ci", "built_at_o2", "-O", "1"]));
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(out.stdout.contains(", -O1)"), "{}", out.stdout);
}

// 5. Fails only under TSO.

#[test]
fn a_tso_only_failure_must_fail_under_tso_and_pass_under_sc() {
    let out = run(test().args(["-p", "fixture-ci", "tso_only", "--format", "json"]));
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    let events = finished(&out.stdout);
    let sb = event(&events, "fixture-ci::tso_only::store_buffering");
    assert_eq!(sb["event"], "ok", "{sb}");
    assert_eq!(sb["judgement"]["expected"], "fail-under-tso");
    assert_eq!(sb["judgement"]["finding"], "failed-as-expected");
    assert_eq!(sb["judgement"]["classification"], "needs-tso");
    let lost = event(&events, "fixture-ci::tso_only::lost_update");
    assert_eq!(lost["event"], "failed", "{lost}");
    assert_eq!(lost["judgement"]["finding"], "fails-under-sc");
    assert!(
        lost["stdout"]
            .as_str()
            .is_some_and(|s| s.contains("not a TSO-only bug")),
        "{lost}"
    );
    // Under SC both must pass: the store-buffering one does, the lost update does not.
    let out = run(test()
        .args(["-p", "fixture-ci", "tso_only", "--format", "json"])
        .args(sc()));
    let events = finished(&out.stdout);
    assert_eq!(
        event(&events, "fixture-ci::tso_only::store_buffering")["event"],
        "ok"
    );
    let lost = event(&events, "fixture-ci::tso_only::lost_update");
    assert_eq!(lost["judgement"]["finding"], "unexpected-failure", "{lost}");
}

// 6. The bound sweep judges each test once.

#[test]
fn a_sweep_judges_an_expected_failure_at_its_smallest_failing_bound() {
    let out = run(test().args([
        "-p",
        "fixture-ci",
        "store_buffering",
        "--sb-bound",
        "1,2,0",
        "--format",
        "json",
    ]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let lines = json_lines(&out.stdout);
    let rows = lines.iter().filter(|l| l["type"] == "bound").count();
    assert_eq!(rows, 3, "one row per bound: {lines:?}");
    let tests = finished(&out.stdout);
    assert_eq!(tests.len(), 1, "one result per test: {tests:?}");
    assert_eq!(tests[0]["sb_bound"], 1);
    assert_eq!(tests[0]["judgement"]["finding"], "failed-as-expected");
    let sweep = lines
        .iter()
        .find(|l| l["type"] == "sweep")
        .expect("a sweep event");
    assert_eq!(sweep["smallest_failing_bound"], 1);
    assert_eq!(sweep["result"], "ok");
}

// 7. Sharding.

#[test]
fn partitions_split_the_tests_without_overlap() {
    let all = listed(&run(test().args(["--workspace", "--list"])).stdout);
    assert!(all.len() >= 15, "{all:?}");
    let out = run(test().args(["--workspace", "--list", "--partition", "count:1/3"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!("partition_count_1_of_3", out.stdout);
    for strategy in ["count", "hash"] {
        let mut seen = BTreeSet::new();
        let mut total = 0;
        for shard in 1..=3 {
            let out = run(test().args([
                "--workspace",
                "--list",
                "--partition",
                &format!("{strategy}:{shard}/3"),
            ]));
            let names = listed(&out.stdout);
            total += names.len();
            seen.extend(names);
        }
        assert_eq!(
            total,
            all.len(),
            "{strategy}: every test in exactly one shard"
        );
        assert_eq!(
            seen,
            all.iter().cloned().collect::<BTreeSet<_>>(),
            "{strategy}"
        );
    }
    let out = run(test().args(["--workspace", "--partition", "count:4/3"]));
    assert_eq!(out.code, 2, "{}", out.stderr);
}

#[test]
fn a_shard_reports_the_other_tests_as_filtered_out() {
    let out = run(test()
        .args(["-p", "fixture-litmus", "--partition", "count:2/2"])
        .args(sc()));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    // Sorted: fenced, padded, plain; shard 2 of 2 runs `padded`.
    assert!(
        out.stdout
            .contains("test fixture-litmus::store_buffering::padded ... ok"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("1 passed; 0 failed; 0 ignored; 0 measured; 2 filtered out"),
        "{}",
        out.stdout
    );
}

// 8. JUnit.

/// Masks the run-dependent `time` and `timestamp` attributes of a JUnit report.
fn mask_junit(xml: &str) -> String {
    let mut out = String::new();
    let mut rest = xml;
    while let Some(at) = rest.find(" time=\"") {
        out.push_str(&rest[..at]);
        out.push_str(" time=\"[TIME]\"");
        let after = &rest[at + 7..];
        rest = after.find('"').map_or("", |end| &after[end + 1..]);
    }
    out.push_str(rest);
    // The bodies hold the counterexample traces, asserted on separately; their
    // rendering is not what this snapshot is about.
    let mut masked = String::new();
    let mut rest = out.as_str();
    while let Some(open) = rest.find("<failure ") {
        let body = open + rest[open..].find('>').unwrap_or(0) + 1;
        let close = body + rest[body..].find("</failure>").expect("a closing tag");
        masked.push_str(&rest[..body]);
        masked.push_str("[EXPLANATION]");
        rest = &rest[close..];
    }
    masked.push_str(rest);
    masked
}

#[test]
fn junit_report_carries_the_counterexample() {
    let path = scratch("junit").join("report.xml");
    let _ = std::fs::remove_file(&path);
    let out = run(test().args(["-p", "fixture-litmus", "--junit"]).arg(&path));
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    let xml = std::fs::read_to_string(&path).expect("the JUnit report is written");
    assert!(xml.contains("store_buffering.c:62"), "{xml}");
    assert!(xml.contains("trace:"), "{xml}");
    insta::assert_snapshot!("junit_litmus", mask_junit(&mask(&xml)));
}

// 9. Per-test memory.

#[test]
fn a_small_test_reports_its_own_memory_after_a_big_one() {
    let memory_of_program = |filter: &[&str]| {
        let out = run(test()
            .args(["-p", "fixture-basic", "--format", "json"])
            .args(sc())
            .args(filter));
        let events = finished(&out.stdout);
        let program = event(&events, "fixture-basic::program");
        // The exploration's heap holds at least the stored states.
        assert!(
            program["memory_bytes"].as_u64() >= program["stored_bytes"].as_u64(),
            "{program}"
        );
        assert!(program.get("peak_memory_bytes").is_none(), "{program}");
        program["memory_bytes"].as_u64().expect("memory_bytes")
    };
    // With one test thread `program` runs after `grid::three_workers` (thousands of states).
    let after_big = memory_of_program(&[]);
    let alone = memory_of_program(&["program"]);
    // Not to the byte: a test that runs alone gets every core, and its search workers
    // allocate side by side, so the peak moves by a few bytes between runs. The big
    // test's memory would show as megabytes.
    assert!(
        after_big.abs_diff(alone) <= alone / 16,
        "{after_big} after the big test, {alone} alone"
    );
}
