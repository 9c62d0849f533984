//! Finding the `cargo-tso` binary the suites run: `CARGO_TSO_BIN` when set, otherwise
//! built once per test process with `cargo build --release -p cargo-tso` (release,
//! because the suites run thousands of checks; the target dir follows cargo's own rules,
//! so `CARGO_TARGET_DIR` is respected).

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

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
