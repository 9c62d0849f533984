//! Shared helpers for the natives tests: compile a small C/C++ program with clang-19 and
//! model-check it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tso_engine::{check, CheckOptions, CheckReport, ErrorKind, Limits, Natives, Verdict};

pub const OPT_LEVELS: [&str; 2] = ["-O0", "-O2"];

fn scratch_dir() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("tso-natives-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

fn include_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../test-support/include")
}

/// Compile `path` to bitcode with clang-19 at `opt` (plus `extra` flags).
pub fn compile_file(path: &Path, opt: &str, extra: &[&str]) -> PathBuf {
    let cxx = path.extension().is_some_and(|e| e == "cpp" || e == "cc");
    let out = scratch_dir().join("prog.bc");
    let mut cmd = Command::new(if cxx { "clang++-19" } else { "clang-19" });
    if cxx {
        cmd.args(["-std=c++17", "-fno-exceptions"]);
    }
    cmd.args(["-c", "-emit-llvm", "-g", opt, "-I"])
        .arg(include_dir())
        .args(extra)
        .arg(path)
        .arg("-o")
        .arg(&out);
    let status = cmd.status().expect("run clang-19");
    assert!(status.success(), "clang-19 failed on {}", path.display());
    out
}

/// Compile source text (`ext` is "c" or "cpp") and check it.
pub fn run_source(src: &str, ext: &str, opt: &str) -> CheckReport {
    let path = scratch_dir().join(format!("prog.{ext}"));
    std::fs::write(&path, src).expect("write source");
    run_file(&path, opt, &[])
}

pub fn run_file(path: &Path, opt: &str, extra: &[&str]) -> CheckReport {
    let bc = compile_file(path, opt, extra);
    let prog = tso_engine::load_file(&bc).expect("load bitcode");
    let opts = CheckOptions {
        limits: Limits {
            max_states: Some(2_000_000),
            max_memory: None,
            timeout: Some(Duration::from_secs(60)),
            deadline: None,
            stop: None,
        },
        ..CheckOptions::default()
    };
    check(&prog, &Natives::standard(), &opts)
}

/// Check C (or C++) source at -O0 and -O2 and assert the verdict: `None` = pass.
pub fn expect(src: &str, ext: &str, kind: Option<ErrorKind>) -> Vec<CheckReport> {
    OPT_LEVELS
        .iter()
        .map(|opt| {
            let r = run_source(src, ext, opt);
            assert_verdict(&r, kind, opt);
            r
        })
        .collect()
}

pub fn assert_verdict(r: &CheckReport, kind: Option<ErrorKind>, what: &str) {
    let got = r
        .failure
        .as_ref()
        .map(|f| f.to_string())
        .unwrap_or_default();
    match kind {
        None => assert_eq!(
            r.verdict,
            Verdict::Pass,
            "{what}: expected pass, got {:?} {got}",
            r.verdict
        ),
        Some(k) => {
            assert_eq!(
                r.failure.as_ref().map(|f| f.kind),
                Some(k),
                "{what}: expected {k}, got {:?} {got}",
                r.verdict
            );
            let want = if k.is_tool_limitation() {
                Verdict::Error
            } else {
                Verdict::Fail
            };
            assert_eq!(r.verdict, want, "{what}: {got}");
        }
    }
}
