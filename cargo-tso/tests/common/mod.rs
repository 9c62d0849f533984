//! Running the real `cargo-tso` binary on the fixtures.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
}

/// A scratch directory for this test binary (inside cargo's target dir).
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// `cargo-tso` with a private bitcode cache, no colors, no progress display.
pub fn cargo_tso() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-tso"));
    cmd.env("CARGO_TSO_CACHE_DIR", scratch("cache"))
        .env("CARGO_TARGET_DIR", scratch("fixture-target"))
        .env("NO_COLOR", "1")
        .env("CI", "1");
    cmd
}

/// `cargo-tso check` run in the check fixtures directory.
pub fn check() -> Command {
    let mut cmd = cargo_tso();
    cmd.current_dir(fixtures().join("check")).arg("check");
    cmd
}

/// `cargo-tso tso test` of the bundled examples' three crates, run in `examples/`.
pub fn examples_test() -> Command {
    let mut cmd = cargo_tso();
    cmd.current_dir(fixtures().join("../../../examples")).args([
        "tso",
        "test",
        "-p",
        "peterson-lock",
        "-p",
        "seqlock-cpp",
        "-p",
        "spsc-ring",
    ]);
    cmd
}

/// `cargo-tso tso test` (as cargo runs it) in the fixture workspace, one test thread
/// so the order of the report is fixed.
pub fn test() -> Command {
    let mut cmd = cargo_tso();
    cmd.current_dir(fixtures().join("ws"))
        .args(["tso", "test", "--test-threads", "1"]);
    cmd
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn run(cmd: &mut Command) -> Run {
    let out = cmd.output().expect("running cargo-tso");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Replaces what changes between runs and machines: times, speeds, memory, the
/// fixtures' absolute path.
pub fn mask(text: &str) -> String {
    let fixtures = fixtures().display().to_string();
    let mut out = text.replace(&fixtures, "[FIXTURES]");
    out = replace_number_before(&out, "s (", "[TIME]");
    out = replace_number_before(&out, " states/s)", "[RATE]");
    out = replace_number_before(&out, "s\n", "[TIME]");
    out = replace_number_before(&out, "s)", "[TIME]");
    let mut masked = String::new();
    for line in out.split_inclusive('\n') {
        match line.find("memory: ") {
            Some(at) => {
                masked.push_str(&line[..at]);
                masked.push_str("memory: [MEM]");
                if line.ends_with('\n') {
                    masked.push('\n');
                }
            }
            None => masked.push_str(line),
        }
    }
    masked
}

/// Replaces each decimal number immediately followed by `suffix` with `token`.
fn replace_number_before(text: &str, suffix: &str, token: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(suffix) {
        let head = &rest[..at];
        let start = head
            .trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
            .len();
        if start < head.len() && head[start..].chars().any(|c| c.is_ascii_digit()) {
            // Right-aligned columns pad by the number's width: keep one space.
            let before = &head[..start];
            let unpadded = before.trim_end_matches(' ');
            out.push_str(unpadded);
            if unpadded.len() < before.len() {
                out.push(' ');
            }
            out.push_str(token);
        } else {
            out.push_str(head);
        }
        out.push_str(suffix);
        rest = &rest[at + suffix.len()..];
    }
    out.push_str(rest);
    out
}

/// The JSON lines of a `--format json` stream.
pub fn json_lines(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// Run under sequential consistency.
pub fn sc() -> [&'static str; 2] {
    ["--memory-model", "sc"]
}

/// The finished test events (`type: test`, not `started`) of a JSON stream.
pub fn finished_events(stdout: &str) -> Vec<serde_json::Value> {
    json_lines(stdout)
        .into_iter()
        .filter(|e| e["type"] == "test" && e["event"] != "started")
        .collect()
}

/// The event of the test called `name`.
pub fn event<'a>(events: &'a [serde_json::Value], name: &str) -> &'a serde_json::Value {
    events
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no event for {name} in {events:?}"))
}
