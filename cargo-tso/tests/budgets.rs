//! Per-test budgets: set in build.rs (per group, per file) and on the command line,
//! which wins; the defaults of `cargo tso test`; a budget makes a test inconclusive,
//! which fails the run unless allowed; Ctrl-C/SIGTERM ends with the summary and the
//! JUnit of what finished; the result line's time covers every phase.

mod common;

use std::process::Command;
use std::time::Duration;

use common::{cargo_tso, event, finished_events, fixtures, run, scratch};

/// `cargo-tso tso test` in the budgets fixture workspace, one test thread.
fn test() -> Command {
    let mut cmd = cargo_tso();
    cmd.current_dir(fixtures().join("budgets-ws"))
        .args(["tso", "test", "--test-threads", "1"]);
    cmd
}

const WORKERS: &str = "fixture-budgets::workers::three_workers";
const TICKER: &str = "fixture-budgets::grows::endless_ticker";
const PADDED: &str = "fixture-budgets::padded::store_buffering";

#[test]
fn a_group_budget_makes_a_test_inconclusive_which_fails_the_run() {
    let out = run(test().args(["three_workers", "--races", "allow"]));
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains(&format!("test {WORKERS} ... INCONCLUSIVE")),
        "{}",
        out.stdout
    );
    // The reason, the figures reached and where each budget came from.
    assert!(
        out.stdout.contains("--max-states 40 reached"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("states: "), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("budget: timeout 120s (build.rs), max-memory ")
            && out.stdout.contains("(default), max-states 40 (build.rs)"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("0 passed; 1 failed"), "{}", out.stdout);

    // The command line wins over the build script: no state limit, and it passes.
    let out = run(test().args(["three_workers", "--races", "allow", "--max-states", "0"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains(&format!("test {WORKERS} ... ok")),
        "{}",
        out.stdout
    );

    // Allowed from the command line: reported, not counted as failed.
    let out = run(test().args(["three_workers", "--races", "allow", "--allow-inconclusive"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains(&format!("test {WORKERS} ... inconclusive (allowed)")),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("0 passed; 0 failed"), "{}", out.stdout);
}

#[test]
fn a_file_that_allows_inconclusive_shows_the_growth_and_does_not_fail_the_run() {
    let junit = scratch("budgets-junit").join("allowed.xml");
    let out = run(test().args(["endless_ticker", "--junit"]).arg(&junit));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains(&format!("test {TICKER} ... inconclusive (allowed)")),
        "{}",
        out.stdout
    );
    // The file's own budget (300 states) wins over its group's (40).
    assert!(
        out.stdout.contains("--max-states 300 reached")
            && out.stdout.contains("max-states 300 (build.rs)"),
        "{}",
        out.stdout
    );
    // The growth diagnosis names the variable that keeps growing.
    assert!(
        out.stdout.contains("`ticks`") && out.stdout.contains("distinct values"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("1 inconclusive, allowed"),
        "{}",
        out.stdout
    );
    let xml = std::fs::read_to_string(&junit).expect("the JUnit report");
    assert!(
        xml.contains("<skipped") && xml.contains("inconclusive (allowed)"),
        "{xml}"
    );
}

#[test]
fn memory_and_time_budgets_stop_a_test_that_grows() {
    let out = run(test().args([
        "endless_ticker",
        "--max-states",
        "0",
        "--max-memory",
        "4M",
        "--format",
        "json",
    ]));
    let events = finished_events(&out.stdout);
    let ticker = event(&events, TICKER);
    assert_eq!(
        ticker["judgement"]["status"], "inconclusive-allowed",
        "{}{}",
        out.stdout, out.stderr
    );
    let reason = ticker["inconclusive_reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("max-memory 4.0 MiB reached (this test's exploration)"),
        "{ticker}"
    );
    assert!(
        ticker["memory_bytes"].as_u64().unwrap_or(0) >= 4 << 20,
        "{ticker}"
    );

    runs_past_10s_naming_what_grows(&mut test());
}

/// Runs the endless ticker for 12 s with `cmd` (`cargo tso test` in the fixture): it
/// stops at the timeout, and past 10 s of search a notice names what keeps growing,
/// before any limit.
fn runs_past_10s_naming_what_grows(cmd: &mut Command) {
    let out = run(cmd.args([
        "endless_ticker",
        "--max-states",
        "0",
        "--timeout",
        "12",
        "--format",
        "json",
    ]));
    let events = finished_events(&out.stdout);
    let ticker = event(&events, TICKER);
    let reason = ticker["inconclusive_reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("--timeout 12s reached"),
        "{}{}",
        out.stdout,
        out.stderr
    );
    assert!(
        out.stderr.contains(&format!(
            "test `{TICKER}`: after 10s, along the path its search is on: `ticks`"
        )),
        "{}",
        out.stderr
    );
}

/// The breadth-first search (chosen here by a calibration that says it is faster on
/// this machine's cores) names what keeps growing after 10 s too, from the path to the
/// first state of a level.
#[test]
fn a_breadth_first_search_also_names_what_keeps_growing() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cache = scratch("breadth-first-growth");
    let calibration = serde_json::json!({
        "cargo_tso": env!("CARGO_PKG_VERSION"),
        "measurements": [{
            "workers": cores,
            "breadth_first_over_depth_first": 0.5,
            "depth_first_seconds": 2.0,
            "breadth_first_seconds": 1.0,
            "runs": 1,
            "program": "test",
        }],
    });
    std::fs::write(
        cache.join("search-calibration.json"),
        calibration.to_string(),
    )
    .expect("write the calibration");
    runs_past_10s_naming_what_grows(test().env("CARGO_TSO_CACHE_DIR", &cache));
}

#[test]
fn the_build_script_bound_is_the_default_and_the_command_line_wins() {
    let out = run(test().args(["store_buffering", "--format", "json"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let events = finished_events(&out.stdout);
    let padded = event(&events, PADDED);
    assert_eq!(padded["sb_bound"], 1, "{padded}");
    assert_eq!(padded["verdict"], "pass", "{padded}");

    let out = run(test().args(["store_buffering", "--sb-bound", "2", "--format", "json"]));
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    let events = finished_events(&out.stdout);
    let padded = event(&events, PADDED);
    assert_eq!(padded["sb_bound"], 2, "{padded}");
    assert_eq!(padded["verdict"], "fail", "{padded}");
    // The time is the test's wall time: its phases (search, race search, SC re-run,
    // the rest) add up to it.
    let phases = padded["phases"].as_array().cloned().unwrap_or_default();
    let names: Vec<&str> = phases.iter().filter_map(|p| p["phase"].as_str()).collect();
    for phase in ["search", "sc-rerun"] {
        assert!(names.contains(&phase), "{phase} in {padded}");
    }
    let sum: f64 = phases.iter().filter_map(|p| p["time_ms"].as_f64()).sum();
    let total = padded["time_ms"].as_f64().unwrap_or(0.0);
    assert!(
        (total - sum).abs() <= 0.01 * phases.len() as f64,
        "{sum} ms by phase, {total} ms in all: {padded}"
    );
    assert!(
        padded["exec_time"].as_f64().unwrap_or(0.0) * 1000.0 <= total + 0.01,
        "the time covers the test's wall time: {padded}"
    );
}

#[test]
fn verbose_run_says_the_defaults() {
    let out = run(test().args(["store_buffering", "-v"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr
            .contains("budgets: timeout 600s (default), max-memory "),
        "{}",
        out.stderr
    );
    assert!(
        out.stdout.contains("time by phase: search "),
        "{}",
        out.stdout
    );
}

/// SIGTERM in the middle of a run: the test that runs stops, the one that finished is
/// in the summary and the JUnit report, and the exit status is the shell's for SIGTERM.
#[test]
fn sigterm_ends_with_the_summary_and_the_junit_of_what_finished() {
    let dir = scratch("budgets-sigterm");
    let junit = dir.join("junit.xml");
    let stdout_path = dir.join("stdout.txt");
    let stderr_path = dir.join("stderr.txt");
    let _ = std::fs::remove_file(&junit);
    let file = |path: &std::path::Path| std::fs::File::create(path).expect("output file");
    // Two tests side by side: `padded` finishes, `grows` runs with no budget at all.
    let mut child = cargo_tso()
        .current_dir(fixtures().join("budgets-ws"))
        .args([
            "tso",
            "test",
            "--test-threads",
            "2",
            "--skip",
            "three_workers",
        ])
        .args([
            "--max-states",
            "0",
            "--timeout",
            "0",
            "--slow-timeout",
            "0.2",
        ])
        .arg("--junit")
        .arg(&junit)
        .stdout(file(&stdout_path))
        .stderr(file(&stderr_path))
        .spawn()
        .expect("starting cargo-tso");
    let read = |path: &std::path::Path| std::fs::read_to_string(path).unwrap_or_default();
    // Wait until `padded` has finished and `grows` is announced as still running
    // (polled; the bound only keeps a broken run from hanging the suite).
    let mut ready = false;
    for _ in 0..3000 {
        ready = read(&stdout_path).contains(&format!("test {PADDED} ... ok"))
            && read(&stderr_path).contains(&format!("test `{TICKER}` has been running"));
        if ready || child.try_wait().ok().flatten().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(ready, "{}{}", read(&stdout_path), read(&stderr_path));
    // SAFETY: sends a signal to our own child process.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let status = child.wait().expect("waiting for cargo-tso");
    let (stdout, stderr) = (read(&stdout_path), read(&stderr_path));
    assert_eq!(status.code(), Some(143), "{stdout}{stderr}");
    assert!(
        stderr.contains("SIGTERM: stopping the running tests"),
        "{stderr}"
    );
    assert!(
        stdout.contains("1 test not run or stopped: SIGTERM interrupted the run"),
        "{stdout}"
    );
    assert!(
        stdout.contains("test result: FAILED. 1 passed; 0 failed"),
        "{stdout}"
    );
    let xml = std::fs::read_to_string(&junit).expect("the JUnit report");
    assert!(xml.contains("store_buffering"), "{xml}");
    assert!(!xml.contains("endless_ticker"), "{xml}");
}
