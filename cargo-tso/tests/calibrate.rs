//! `cargo tso calibrate`: it times both searches, saves the ratio, and the next
//! `check` without `-j` uses it and says so.

mod common;

use common::{cargo_tso, fixtures, run, scratch};

/// `cargo-tso` whose cache (and so calibration) is this test's own.
fn with_cache(name: &str) -> std::process::Command {
    let dir = scratch(name);
    let _ = std::fs::remove_file(dir.join("search-calibration.json"));
    let mut cmd = cargo_tso();
    cmd.env("CARGO_TSO_CACHE_DIR", dir);
    cmd
}

#[test]
fn calibration_is_saved_and_chooses_the_search_of_check() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let program = fixtures().join("check").join("mutex_counter.c");
    let out = run(with_cache("calibrate-saved")
        .args(["calibrate", "--runs", "1", "--program"])
        .arg(&program));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let check = |cache: &str| {
        let mut cmd = cargo_tso();
        cmd.env("CARGO_TSO_CACHE_DIR", scratch(cache))
            .args(["check", "-v"])
            .arg(&program);
        run(&mut cmd)
    };
    let checked = check("calibrate-saved");
    assert_eq!(checked.code, 0, "{}{}", checked.stdout, checked.stderr);
    let search = checked
        .stdout
        .lines()
        .find(|l| l.starts_with("search: "))
        .unwrap_or_else(|| panic!("no search line:\n{}", checked.stdout));
    if cores == 1 {
        assert!(out.stdout.contains("nothing to compare"), "{}", out.stdout);
        assert!(search.contains("1 core"), "{search}");
    } else {
        let saved =
            std::fs::read_to_string(scratch("calibrate-saved").join("search-calibration.json"))
                .expect("the calibration file");
        let saved: serde_json::Value = serde_json::from_str(&saved).expect("JSON");
        assert_eq!(saved["measurements"][0]["workers"], cores);
        assert!(out.stdout.contains("check now searches"), "{}", out.stdout);
        assert!(
            search.contains("on this machine by `cargo tso calibrate`"),
            "{search}"
        );
    }
}

#[test]
fn a_failing_calibration_program_is_an_error_not_a_measurement() {
    let program = fixtures().join("check").join("lost_update.c");
    let out = run(with_cache("calibrate-failing")
        .args(["calibrate", "-j", "2", "--runs", "1", "--program"])
        .arg(&program));
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("must pass"), "{}", out.stderr);
    assert!(!scratch("calibrate-failing")
        .join("search-calibration.json")
        .exists());
}

#[test]
fn zero_runs_is_a_usage_error() {
    let out = run(with_cache("calibrate-zero").args(["calibrate", "-j", "2", "--runs", "0"]));
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("at least 1"), "{}", out.stderr);
}
