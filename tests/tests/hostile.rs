//! Hostile and broken inputs: each gets the documented exit code and a clear
//! message, with no panic, no hang and never a false pass. Fixtures are in `tests/hostile/`.

use tso_suite::binary as harness;

use harness::{check_command, run_limited, scratch, Run};
use std::path::{Path, PathBuf};
use std::time::Duration;

const PASS: i32 = 0;
const FAIL: i32 = 1;
const TOOL_ERROR: i32 = 2;
const INCONCLUSIVE: i32 = 3;

/// Wall-clock limit for runs that should end at once; a run past it is a hang.
const QUICK: Duration = Duration::from_secs(60);

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("hostile")
        .join(name)
}

fn check(name: &str, args: &[&str], limit: Duration) -> Run {
    let dir = scratch(name);
    run_limited(&mut check_command(args, &dir), limit, &dir)
}

/// The run ended by itself with `code`, said every one of `needles` (case-insensitive),
/// and showed no sign of a Rust panic or abort.
fn assert_answer(run: &Run, code: i32, needles: &[&str]) {
    let text = run.text();
    assert!(
        !run.timed_out,
        "hung: killed after {:?}\n{text}",
        run.elapsed
    );
    assert_eq!(run.code, Some(code), "wrong exit code\n{text}");
    for bad in [
        "panicked at",
        "stack backtrace",
        "RUST_BACKTRACE",
        "memory allocation of",
    ] {
        assert!(!text.contains(bad), "looks like a crash (`{bad}`)\n{text}");
    }
    let lower = text.to_lowercase();
    for needle in needles {
        assert!(
            lower.contains(&needle.to_lowercase()),
            "message does not say `{needle}`\n{text}"
        );
    }
}

/// The `--format json` answer: (verdict, error kind).
fn json_answer(run: &Run) -> (String, Option<String>) {
    let v: serde_json::Value = match serde_json::from_str(run.stdout.trim()) {
        Ok(v) => v,
        Err(e) => panic!("stdout is not one JSON object ({e})\n{}", run.text()),
    };
    (
        v["verdict"].as_str().unwrap_or("").to_string(),
        v["error"]["kind"].as_str().map(str::to_string),
    )
}

fn path_arg(p: &Path) -> String {
    p.display().to_string()
}

#[test]
fn missing_file_is_a_tool_error_naming_the_file() {
    let missing = fixture("no_such_program.c");
    let run = check("missing", &[&path_arg(&missing)], QUICK);
    assert_answer(&run, TOOL_ERROR, &["no_such_program.c", "no such file"]);
    let run = check(
        "missing-json",
        &[&path_arg(&missing), "--format", "json"],
        QUICK,
    );
    assert_answer(&run, TOOL_ERROR, &[]);
    assert_eq!(json_answer(&run).0, "error");
}

#[test]
fn a_directory_is_not_a_readable_program() {
    let dir = scratch("dir-input");
    let not_a_file = dir.join("program.c");
    std::fs::create_dir_all(&not_a_file).expect("creating a directory");
    let run = check("dir", &[&path_arg(&not_a_file)], QUICK);
    assert_answer(&run, TOOL_ERROR, &["program.c", "directory"]);
}

#[test]
fn unreadable_file_is_a_tool_error() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("unreadable-input");
    let file = dir.join("locked.c");
    std::fs::copy(fixture("huge_malloc.c"), &file).expect("copying a fixture");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o000)).expect("chmod 000");
    if std::fs::read(&file).is_ok() {
        // Running as root: permissions do not stop us; the directory test covers
        // unreadable input instead.
        eprintln!("skipping the chmod 000 case: this user can read mode-000 files (root)");
        return;
    }
    let run = check("unreadable", &[&path_arg(&file)], QUICK);
    assert_answer(&run, TOOL_ERROR, &["locked.c", "permission denied"]);
}

#[test]
fn prose_named_dot_c_is_a_compile_error() {
    let run = check("prose-c", &[&path_arg(&fixture("not_c.c"))], QUICK);
    assert_answer(&run, TOOL_ERROR, &["could not compile", "not_c.c"]);
}

#[test]
fn file_of_unknown_kind_is_a_tool_error() {
    let dir = scratch("prose-txt-input");
    let file = dir.join("notes.txt");
    std::fs::copy(fixture("not_c.c"), &file).expect("copying a fixture");
    let run = check("prose-txt", &[&path_arg(&file)], QUICK);
    assert_answer(&run, TOOL_ERROR, &["notes.txt", "unknown file type"]);
}

#[test]
fn garbage_llvm_text_is_a_tool_error() {
    let dir = scratch("garbage-ll-input");
    let file = dir.join("garbage.ll");
    std::fs::write(&file, "define i32 @main( {\n  ret i32 banana\n").expect("writing garbage.ll");
    let run = check("garbage-ll", &[&path_arg(&file)], QUICK);
    assert_answer(&run, TOOL_ERROR, &["garbage.ll", "invalid"]);
}

#[test]
fn syntax_error_reports_clang_diagnostic() {
    let run = check("syntax", &[&path_arg(&fixture("syntax_error.c"))], QUICK);
    assert_answer(
        &run,
        TOOL_ERROR,
        &["could not compile", "syntax_error.c:3", "expected ';'"],
    );
}

#[test]
fn missing_header_reports_the_header() {
    let run = check("header", &[&path_arg(&fixture("missing_header.c"))], QUICK);
    assert_answer(
        &run,
        TOOL_ERROR,
        &["no_such_header_for_cargo_tso.h", "not found"],
    );
}

#[test]
fn no_main_means_nothing_to_run() {
    for model in ["sc", "tso"] {
        let run = check(
            "no-main",
            &[&path_arg(&fixture("no_main.c")), "--memory-model", model],
            QUICK,
        );
        assert_answer(&run, TOOL_ERROR, &["main"]);
        let run = check(
            "no-main-json",
            &[
                &path_arg(&fixture("no_main.c")),
                "--memory-model",
                model,
                "--format",
                "json",
            ],
            QUICK,
        );
        assert_answer(&run, TOOL_ERROR, &[]);
        assert_eq!(json_answer(&run).0, "error");
    }
}

/// Unsupported constructs: exit 2 under both memory models, naming the construct.
fn assert_unsupported(name: &str, needles: &[&str]) {
    for model in ["sc", "tso"] {
        let run = check(
            name,
            &[&path_arg(&fixture(name)), "--memory-model", model],
            QUICK,
        );
        assert_answer(&run, TOOL_ERROR, needles);
        let run = check(
            name,
            &[
                &path_arg(&fixture(name)),
                "--memory-model",
                model,
                "--format",
                "json",
            ],
            QUICK,
        );
        assert_eq!(
            json_answer(&run),
            ("error".to_string(), Some("unsupported".to_string())),
            "{}",
            run.text()
        );
    }
}

#[test]
fn unsupported_intrinsic_is_named() {
    assert_unsupported(
        "unsupported_intrinsic.ll",
        &["unsupported", "llvm.readcyclecounter"],
    );
}

#[test]
fn unsupported_instruction_is_named() {
    assert_unsupported("unsupported_instruction.ll", &["unsupported", "va_arg"]);
}

#[test]
fn long_double_arithmetic_is_unsupported() {
    assert_unsupported("long_double.c", &["unsupported", "long double"]);
}

#[test]
fn non_temporal_store_is_unsupported_under_tso() {
    // Weaker than x86-TSO (later stores may pass it): an ordinary store would pass the
    // fixture, whose consumer can see the flag before the data on x86.
    let name = "non_temporal_store.c";
    let run = check(
        name,
        &[&path_arg(&fixture(name)), "--memory-model", "tso"],
        QUICK,
    );
    assert_answer(&run, TOOL_ERROR, &["unsupported", "non-temporal store"]);
    // Under SC every store is ordered: nothing to refuse.
    let run = check(
        name,
        &[
            &path_arg(&fixture(name)),
            "--memory-model",
            "sc",
            "--races",
            "allow",
            "--format",
            "json",
        ],
        QUICK,
    );
    assert_eq!(json_answer(&run).0, "pass", "{}", run.text());
}

#[test]
fn inline_assembly_is_unsupported() {
    assert_unsupported("inline_asm.c", &["unsupported", "rdtsc"]);
}

#[test]
fn unmodelled_libc_call_names_function_and_call_site() {
    assert_unsupported(
        "unmodelled_libc.c",
        &["unsupported", "fopen", "unmodelled_libc.c:4"],
    );
}

/// A verdict on the program: exit 1 with `kind` under both memory models.
fn assert_fails_with(name: &str, kinds: &[&str]) {
    for model in ["sc", "tso"] {
        let run = check(
            name,
            &[
                &path_arg(&fixture(name)),
                "--memory-model",
                model,
                "--format",
                "json",
            ],
            QUICK,
        );
        assert_answer(&run, FAIL, &[]);
        let (verdict, kind) = json_answer(&run);
        assert_eq!(verdict, "fail", "{}", run.text());
        let kind = kind.unwrap_or_default();
        assert!(
            kinds.contains(&kind.as_str()),
            "error kind `{kind}`, expected one of {kinds:?}\n{}",
            run.text()
        );
    }
}

#[test]
fn unbounded_recursion_is_a_stack_overflow() {
    assert_fails_with("unbounded_recursion.c", &["stack-overflow"]);
    let run = check(
        "recursion-human",
        &[&path_arg(&fixture("unbounded_recursion.c"))],
        QUICK,
    );
    assert_answer(&run, FAIL, &["stack-overflow", "unbounded_recursion.c:2"]);
}

#[test]
fn silent_infinite_loop_is_non_terminating() {
    assert_fails_with("silent_infinite_loop.c", &["non-terminating"]);
    let run = check(
        "loop-human",
        &[&path_arg(&fixture("silent_infinite_loop.c"))],
        QUICK,
    );
    assert_answer(&run, FAIL, &["non-terminating", "silent_infinite_loop.c:4"]);
}

/// A loop found when it closes shows the way into it and one turn, then says that it
/// repeats: main draining a free list that an ABA bug made cyclic (two blocks), whose
/// loads are trace lines under TSO. Cut at one turn, main's loads after its last join
/// are the first pop (the way in) and the two pops of one turn; uncut, every pop until
/// the cycle was found (dozens).
#[test]
fn looping_thread_trace_is_the_way_in_and_one_turn() {
    let file = tso_suite::suite_dir().join("programs/nonterm/slab_aba_cyclic_drain.c");
    let run = check(
        "loop-trace",
        &[&path_arg(&file), "--memory-model", "tso", "--", "-O0"],
        QUICK,
    );
    assert_answer(&run, FAIL, &["non-terminating", "back in the state"]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    let joined = lines
        .iter()
        .rposition(|l| l.contains("pthread_join(thread 2"))
        .unwrap_or_else(|| panic!("no join in the trace\n{}", run.text()));
    let loads = lines[joined..]
        .iter()
        .filter(|l| l.trim_start().starts_with("T0") && l.contains("load "))
        .count();
    assert_eq!(loads, 6, "main's loads after its joins\n{}", run.text());
    assert!(
        lines[joined..]
            .iter()
            .any(|l| l.contains("back in the state") && l.contains("repeats")),
        "{}",
        run.text()
    );
}

/// An infinite state space under TSO with an unbounded buffer: each limit ends it as
/// inconclusive, saying which limit.
#[test]
fn unbounded_store_buffer_ends_inconclusive_at_each_limit() {
    let file = path_arg(&fixture("unbounded_counter.c"));
    let limits: [(&[&str], &str); 3] = [
        (&["--max-states", "2000"], "max-states"),
        (&["--max-memory", "300M"], "max-memory"),
        (&["--timeout", "3"], "timeout"),
    ];
    for (limit, said) in limits {
        let mut args = vec![file.as_str(), "--memory-model", "tso", "--sb-bound", "0"];
        args.extend_from_slice(limit);
        let run = check("unbounded", &args, QUICK);
        assert_answer(&run, INCONCLUSIVE, &["inconclusive", said]);
        args.extend_from_slice(&["--format", "json"]);
        let run = check("unbounded-json", &args, QUICK);
        assert_answer(&run, INCONCLUSIVE, &[]);
        assert_eq!(json_answer(&run).0, "inconclusive", "{}", run.text());
    }
}

/// One transition that never ends (a single thread counting forever, nothing visible):
/// `--timeout` must still stop it, inside that first transition, and not the step budget
/// (`--max-steps`) much later. The harness's kill limit only guards against a hang.
#[test]
fn timeout_is_enforced_inside_one_long_transition() {
    for model in ["sc", "tso"] {
        let file = path_arg(&fixture("tight_counter.c"));
        let args = [file.as_str(), "--memory-model", model, "--timeout", "2"];
        let run = check("tight", &args, Duration::from_secs(90));
        assert_answer(&run, INCONCLUSIVE, &["inconclusive", "timeout"]);
        let run = check(
            "tight-json",
            &[&args[..], &["--format", "json"]].concat(),
            Duration::from_secs(90),
        );
        assert_answer(&run, INCONCLUSIVE, &[]);
        let v: serde_json::Value = serde_json::from_str(run.stdout.trim())
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e})\n{}", run.text()));
        let reason = v["inconclusive_reason"].as_str().unwrap_or("");
        assert!(
            reason.contains("--timeout") && !reason.contains("--max-steps"),
            "{}",
            run.text()
        );
        assert_eq!(
            v["transitions"],
            0,
            "stopped after a transition\n{}",
            run.text()
        );
    }
}

#[test]
fn huge_malloc_fails_cleanly_and_the_program_sees_null() {
    for model in ["sc", "tso"] {
        let run = check(
            "huge-malloc",
            &[
                &path_arg(&fixture("huge_malloc.c")),
                "--memory-model",
                model,
                "--show-output",
            ],
            QUICK,
        );
        assert_answer(&run, PASS, &["malloc failed"]);
    }
}

#[test]
fn huge_malloc_used_unchecked_is_a_memory_error() {
    assert_fails_with(
        "huge_malloc_unchecked.c",
        &["null-dereference", "out-of-bounds"],
    );
}

#[test]
fn huge_memset_is_out_of_bounds_without_host_allocation() {
    assert_fails_with("huge_memset.c", &["out-of-bounds"]);
}

/// Bitcode cut short, and bitcode magic followed by junk: exit 2, never a pass.
#[test]
fn corrupt_bitcode_is_a_tool_error() {
    let dir = scratch("corrupt-bc-input");
    let whole = dir.join("whole.bc");
    let status = std::process::Command::new("clang-19")
        .args(["-c", "-emit-llvm", "-O0", "-o"])
        .arg(&whole)
        .arg(fixture("huge_malloc.c"))
        .status()
        .expect("running clang-19");
    assert!(status.success(), "clang-19 could not compile the fixture");
    let bytes = std::fs::read(&whole).expect("reading bitcode");
    let truncated = dir.join("truncated.bc");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).expect("writing truncated.bc");
    let junk = dir.join("junk.bc");
    let mut junk_bytes = b"BC\xC0\xDE".to_vec();
    junk_bytes.extend((0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
    std::fs::write(&junk, junk_bytes).expect("writing junk.bc");
    for (file, name) in [(&truncated, "truncated.bc"), (&junk, "junk.bc")] {
        let run = check("corrupt", &[&path_arg(file)], QUICK);
        assert_answer(&run, TOOL_ERROR, &[name, "invalid"]);
        let run = check(
            "corrupt-json",
            &[&path_arg(file), "--format", "json"],
            QUICK,
        );
        assert_answer(&run, TOOL_ERROR, &[]);
        assert_eq!(json_answer(&run).0, "error");
    }
    // The intact module still checks, so the errors above are about the corruption.
    let run = check("intact", &[&path_arg(&whole)], QUICK);
    assert_answer(&run, PASS, &[]);
}

// Regressions found by the csmith suite (tests/hostile/regressions/).

fn regression(name: &str) -> String {
    path_arg(&fixture("regressions").join(name))
}

/// `*p = *q` with p == q: clang emits llvm.memcpy with equal source and destination,
/// which LLVM allows ("equal or non-overlapping").
#[test]
fn struct_self_assignment_is_not_an_overlapping_memcpy() {
    let file = regression("memcpy_self_assign.c");
    for model in ["sc", "tso"] {
        for opt in ["-O0", "-O2"] {
            let run = check(
                "memcpy-self",
                &[&file, "--memory-model", model, "--show-output", "--", opt],
                QUICK,
            );
            assert_answer(&run, PASS, &["| 6"]);
        }
    }
}

/// One thread, 64 stores to one global: one execution, so a handful of transitions at
/// any store-buffer bound, not a number exponential in the stores.
#[test]
fn repeated_stores_in_one_thread_do_not_branch() {
    let file = regression("repeated_stores_one_thread.c");
    for bound in ["1", "2", "32"] {
        let run = check(
            "repeated-stores",
            &[&file, "--sb-bound", bound, "--format", "json"],
            Duration::from_secs(30),
        );
        assert_answer(&run, PASS, &[]);
        let json: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap_or_default();
        let transitions = json["transitions"].as_u64().unwrap_or(u64::MAX);
        assert!(
            transitions <= 64,
            "--sb-bound {bound}: {transitions} transitions for a single-threaded program\n{}",
            run.text()
        );
    }
}

/// Reduced csmith program: the checksum matches native execution under SC and TSO, in
/// seconds (natively it takes a millisecond; there is one execution).
#[test]
fn reduced_csmith_checksum_matches_native() {
    let file = regression("csmith_crc_reduced.c");
    let dir = scratch("crc-native");
    let exe = dir.join("native");
    let built = std::process::Command::new("clang-19")
        .args(["-w", "-I", "/usr/include/csmith", "-o"])
        .arg(&exe)
        .arg(&file)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(
        built,
        "clang-19 cannot build {file} (is csmith.h installed? apt-get install -y libcsmith-dev)"
    );
    let native = std::process::Command::new(&exe)
        .output()
        .expect("running the native program");
    let native = String::from_utf8_lossy(&native.stdout).trim().to_string();
    assert!(native.starts_with("checksum = "), "native output: {native}");
    for (model, bound) in [("sc", "32"), ("tso", "32"), ("tso", "4")] {
        let args = [
            file.as_str(),
            "--memory-model",
            model,
            "--sb-bound",
            bound,
            "--show-output",
            "--",
            "-I",
            "/usr/include/csmith",
            "-w",
        ];
        let run = check("crc-reduced", &args, Duration::from_secs(20));
        assert_answer(&run, PASS, &[&native]);
    }
}
