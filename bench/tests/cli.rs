//! The benchmark's command line: `--help` prints the usage and runs nothing; a switch
//! no mode reads, or one missing its value, is refused before anything runs.

use std::process::{Command, Output};

fn bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tso-bench"))
        .args(args)
        .output()
        .expect("run tso-bench")
}

#[test]
fn help_prints_usage_and_runs_nothing() {
    for flag in ["--help", "-h"] {
        let out = bench(&[flag]);
        assert_eq!(out.status.code(), Some(0), "{flag}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.starts_with("usage: tso-bench"), "{flag}: {stdout}");
        // The table's header is the first thing a run prints.
        assert!(
            !stdout.contains("transitions"),
            "{flag} ran the table: {stdout}"
        );
    }
    // Wherever it stands, even after a mode.
    let out = bench(&["--defaults", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("usage: tso-bench"));
}

#[test]
fn unknown_switch_is_refused_with_exit_2() {
    let out = bench(&["--quikc"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unknown switch `--quikc`"), "{stderr}");
    assert!(out.stdout.is_empty(), "ran something: {:?}", out.stdout);
}

#[test]
fn switch_without_its_value_is_refused() {
    let out = bench(&["--defaults", "--baseline"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("`--baseline` needs a value"), "{stderr}");
}
