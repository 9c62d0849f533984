//! The one harness for the real `cargo-tso` binary the suites run. Finding it:
//! `CARGO_TSO_BIN` when set, otherwise built once per test process with `cargo build
//! --release -p cargo-tso` (release, because the suites run thousands of checks; the
//! target dir follows cargo's own rules, so `CARGO_TARGET_DIR` is respected). Running
//! it: with a wall-clock limit and output to files ([`run_limited`]).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

static BINARY: OnceLock<Result<PathBuf, String>> = OnceLock::new();

/// Path of the `cargo-tso` executable; panics with cargo's output if it cannot be built.
pub fn cargo_tso() -> PathBuf {
    match BINARY.get_or_init(locate) {
        Ok(p) => p.clone(),
        Err(e) => panic!("cannot obtain the cargo-tso binary: {e}"),
    }
}

fn locate() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("CARGO_TSO_BIN") {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!("CARGO_TSO_BIN={} is not a file", p.display()))
        };
    }
    build()
}

fn build() -> Result<PathBuf, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(crate::workspace_root())
        .args([
            "build",
            "--release",
            "-p",
            "cargo-tso",
            "--bin",
            "cargo-tso",
            "--message-format=json-render-diagnostics",
        ])
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo build failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    // The artifact message names the executable, wherever the target dir is.
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if msg["reason"] == "compiler-artifact" && msg["target"]["name"] == "cargo-tso" {
            if let Some(exe) = msg["executable"].as_str() {
                return Ok(PathBuf::from(exe));
            }
        }
    }
    Err("cargo build reported no cargo-tso executable".into())
}

/// What one process run produced. `code` is `None` when it was killed at the wall limit
/// or died from a signal.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub timed_out: bool,
    pub elapsed: Duration,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Everything the user saw.
    pub fn text(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

/// A scratch directory private to `name` under the system temp dir (emptied first).
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tso-trust-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// Runs `cmd` with its output going to files (no pipe can fill up), killing it after
/// `limit`.
pub fn run_limited(cmd: &mut Command, limit: Duration, scratch_dir: &Path) -> Run {
    let out_path = scratch_dir.join("stdout");
    let err_path = scratch_dir.join("stderr");
    let (out, err) = match (
        std::fs::File::create(&out_path),
        std::fs::File::create(&err_path),
    ) {
        (Ok(o), Ok(e)) => (o, e),
        _ => panic!("cannot create output files in {}", scratch_dir.display()),
    };
    let start = Instant::now();
    let mut child = match cmd.stdin(Stdio::null()).stdout(out).stderr(err).spawn() {
        Ok(c) => c,
        Err(e) => panic!("cannot start {cmd:?}: {e}"),
    };
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                timed_out = true;
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break None,
        }
    };
    Run {
        code: status.and_then(|s| s.code()),
        timed_out,
        elapsed: start.elapsed(),
        stdout: std::fs::read_to_string(&out_path).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err_path).unwrap_or_default(),
    }
}

/// `cargo-tso tso check ARGS` (as cargo runs it), with a private compile cache.
pub fn check_command(args: &[&str], scratch_dir: &Path) -> Command {
    let mut cmd = Command::new(cargo_tso());
    cmd.arg("tso").arg("check").args(args);
    cmd.env("CARGO_TSO_CACHE_DIR", scratch_dir.join("cache"))
        .env("NO_COLOR", "1")
        .env_remove("RUST_BACKTRACE");
    cmd
}
