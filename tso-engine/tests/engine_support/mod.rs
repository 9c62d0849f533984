//! Shared helpers for the engine tests: compile C with clang-19, check it with the
//! engine, and run the same program natively to compare what it prints.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tso_engine::{check, CheckOptions, CheckReport, ErrorKind, Limits, Natives, Verdict};

pub const ALL_OPTS: [&str; 3] = ["-O0", "-O1", "-O2"];

fn scratch_dir() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("tso-enginetests-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

fn include_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../test-support/include")
}

fn write_source(src: &str, ext: &str) -> PathBuf {
    let path = scratch_dir().join(format!("prog.{ext}"));
    std::fs::write(&path, src).expect("write source");
    path
}

/// Compile C source to bitcode at `opt` (plus `extra` flags).
pub fn compile(src: &str, opt: &str, extra: &[&str]) -> PathBuf {
    let path = write_source(src, "c");
    let out = path.with_extension("bc");
    let status = Command::new("clang-19")
        .args(["-c", "-emit-llvm", "-g", opt, "-I"])
        .arg(include_dir())
        .args(extra)
        .arg(&path)
        .arg("-o")
        .arg(&out)
        .status()
        .expect("run clang-19");
    assert!(status.success(), "clang-19 failed:\n{src}");
    out
}

/// Default options for tests: generous but bounded limits.
pub fn options() -> CheckOptions {
    CheckOptions {
        limits: Limits {
            max_states: Some(2_000_000),
            max_memory: None,
            timeout: Some(Duration::from_secs(60)),
            deadline: None,
            stop: None,
        },
        ..CheckOptions::default()
    }
}

pub fn check_bc(bc: &Path, opts: &CheckOptions) -> CheckReport {
    let prog = tso_engine::load_file(bc).expect("load bitcode");
    check(&prog, &Natives::standard(), opts)
}

/// Compile and check `src` at `opt` with `opts`.
pub fn check_with(src: &str, opt: &str, extra: &[&str], opts: &CheckOptions) -> CheckReport {
    check_bc(&compile(src, opt, extra), opts)
}

/// Checks the workspace's `file` compiled at `opt` with `opts`, whose observer sees
/// every new state: fails the test when the observer's own check failed (its messages
/// start with `observer_failure`) or the program could not run.
pub fn check_observed(file: &str, opt: &str, opts: &CheckOptions, observer_failure: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let src = std::fs::read_to_string(root.join(file)).expect("read program");
    let r = check_with(&src, opt, &[], opts);
    if let Some(f) = &r.failure {
        assert!(
            !f.message.starts_with(observer_failure),
            "{file}: {}",
            f.message
        );
    }
    assert!(
        r.verdict != Verdict::Error,
        "{file}: could not run: {:?}",
        r.failure
    );
}

pub fn check_src(src: &str, opt: &str) -> CheckReport {
    check_with(src, opt, &[], &options())
}

/// Build `src` into a native executable at `opt` and return its stdout (and assert it
/// exited with status 0).
pub fn run_native(src: &str, opt: &str, extra: &[&str]) -> String {
    let path = write_source(src, "c");
    let exe = path.with_extension("exe");
    let status = Command::new("clang-19")
        .arg(opt)
        .arg("-I")
        .arg(include_dir())
        .args(extra)
        .arg(&path)
        .arg("-o")
        .arg(&exe)
        .arg("-lm")
        .arg("-pthread")
        .status()
        .expect("run clang-19");
    assert!(status.success(), "native clang-19 build failed:\n{src}");
    let out = Command::new(&exe).output().expect("run native program");
    assert!(
        out.status.success(),
        "native run failed ({:?}):\n{src}",
        out.status
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn describe(r: &CheckReport) -> String {
    format!(
        "verdict {:?}, failure {:?}, at {:?}, output {:?}",
        r.verdict,
        r.failure.as_ref().map(|f| f.to_string()),
        r.counterexample
            .as_ref()
            .and_then(|c| c.error_location.as_ref())
            .map(|l| l.line),
        r.output
    )
}

/// The program passes under the engine at `opt` and prints exactly what the native
/// build prints.
pub fn assert_same_as_native_at(src: &str, opt: &str, extra: &[&str]) -> String {
    let native = run_native(src, opt, extra);
    let r = check_with(src, opt, extra, &options());
    assert_eq!(r.verdict, Verdict::Pass, "{opt}: {}", describe(&r));
    assert_eq!(
        r.output, native,
        "{opt}: engine output differs from native output"
    );
    native
}

/// `assert_same_as_native_at` at -O0, -O1 and -O2; returns the -O0 output.
pub fn assert_same_as_native(src: &str) -> String {
    let mut first = None;
    for opt in ALL_OPTS {
        let out = assert_same_as_native_at(src, opt, &[]);
        first.get_or_insert(out);
    }
    first.unwrap_or_default()
}

/// The line at which the failing thread stopped.
pub fn error_line(r: &CheckReport) -> Option<u32> {
    r.counterexample
        .as_ref()
        .and_then(|c| c.error_location.as_ref())
        .map(|l| l.line)
}

/// Assert a failure of `kind`, at `line` when given.
pub fn assert_failure(r: &CheckReport, kind: ErrorKind, line: Option<u32>, what: &str) {
    assert_eq!(
        r.failure.as_ref().map(|f| f.kind),
        Some(kind),
        "{what}: {}",
        describe(r)
    );
    let want = if kind.is_tool_limitation() {
        Verdict::Error
    } else {
        Verdict::Fail
    };
    assert_eq!(r.verdict, want, "{what}: {}", describe(r));
    if let Some(l) = line {
        assert_eq!(
            error_line(r),
            Some(l),
            "{what}: error line; {}",
            describe(r)
        );
    }
}

pub fn assert_pass(r: &CheckReport, what: &str) {
    assert_eq!(r.verdict, Verdict::Pass, "{what}: {}", describe(r));
}

/// The 1-based line of the first line of `src` containing `marker`.
pub fn line_of(src: &str, marker: &str) -> u32 {
    src.lines()
        .position(|l| l.contains(marker))
        .unwrap_or_else(|| panic!("marker {marker} not in source")) as u32
        + 1
}

/// Programs whose state spaces cover threads, mutexes, condition variables, keys,
/// thread-locals, setjmp, semaphores, cancellation, callbacks from natives, thread
/// results with undefined bits, varargs, heap and exits.
pub const STATE_SPACE_PROGRAMS: &[&str] = &[
    "tests/programs/threads/mutex_counter.c",
    "tests/programs/threads/condvar_prodcons.c",
    "tests/programs/threads/keys.c",
    "tests/programs/threads/thread_local.c",
    "tests/programs/threads/setjmp_per_thread.c",
    "tests/programs/threads/once.c",
    "tests/programs/threads/barrier.c",
    "tests/programs/threads/rwlock.c",
    "tests/programs/threads/tso_choose_threads.c",
    "tests/programs/threads/verifier_atomic.c",
    "tests/programs/threads/one_bad_interleaving.c",
    "tests/programs/threads/once_routine_calls_library.c",
    "tests/programs/threads/semaphore_wait_variants.c",
    "tests/programs/cancel/cleanup_handler_calls_library.c",
    "tests/programs/libc/qsort_bsearch.c",
    "tests/programs/uninit/thread_result_undefined.c",
    "tso-engine/tests/engine_support/programs/varargs_structs.c",
    "bench/programs/mutex3.c",
    "bench/programs/treiber4.c",
];

/// Race programs, racy and race-free, whose race data covers locks, condition
/// variables, create/join, barriers, release/acquire and seq_cst atomics, fences, a
/// fresh node published after a fence, calloc'd memory and library reads.
pub const RACE_PROGRAMS: &[&str] = &[
    "tests/programs/races/mutex.c",
    "tests/programs/races/mutex_racy.c",
    "tests/programs/races/cond_racy.c",
    "tests/programs/races/create_join_racy.c",
    "tests/programs/races/barrier.c",
    "tests/programs/races/release_publish.c",
    "tests/programs/races/relaxed_publish_racy.c",
    "tests/programs/races/seq_cst_publish.c",
    "tests/programs/races/fence_publish.c",
    "tests/programs/races/fence_publish_racy.c",
    "tests/programs/races/fresh_node_fence_publish.c",
    "tests/programs/races/fresh_node_read_after_fence_racy.c",
    "tests/programs/races/calloc_publish_racy.c",
    "tests/programs/races/library_read_racy.c",
    "tests/programs/races/relaxed_counter.c",
];
