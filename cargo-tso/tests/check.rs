//! `cargo tso check` end to end: verdicts, exit codes, human and JSON output.

mod common;

use common::{check, fixtures, mask, run, scratch};
use serde_json::Value;

fn json_of(args: &[&str]) -> (i32, Value) {
    let out = run(check().args(args).args(["--format", "json"]));
    let value: Value = serde_json::from_str(out.stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON object ({e}):\n{}\n{}",
            out.stdout, out.stderr
        )
    });
    (out.code, value)
}

#[test]
fn passing_program_exits_0_with_verdict_and_figures() {
    let out = run(check().args(["mutex_counter.c", "--memory-model", "sc"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    insta::assert_snapshot!("check_pass_sc", mask(&out.stdout));
}

#[test]
fn failing_program_exits_1_with_error_source_line_and_trace() {
    let out = run(check().args(["lost_update.c", "--memory-model", "sc"]));
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    insta::assert_snapshot!("check_fail_sc", mask(&out.stdout));
}

#[test]
fn deadlock_is_a_failure() {
    let (code, json) = json_of(&["deadlock.c", "--memory-model", "sc"]);
    assert_eq!(code, 1);
    assert_eq!(json["verdict"], "fail");
    assert_eq!(json["error"]["kind"], "deadlock");
}

#[test]
fn use_after_free_is_a_failure_at_its_line() {
    let out = run(check().args(["use_after_free.c", "--memory-model", "sc"]));
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("error[use-after-free]"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("--> use_after_free.c:10:"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("10 |     return *p == 7 ? 0 : 2;"),
        "{}",
        out.stdout
    );
}

#[test]
fn json_has_the_contract_fields() {
    let (code, json) = json_of(&["lost_update.c", "--memory-model", "sc"]);
    assert_eq!(code, 1);
    assert_eq!(json["verdict"], "fail");
    assert_eq!(json["error"]["kind"], "assertion");
    assert!(
        json["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("counter == 2")),
        "{json}"
    );
    assert_eq!(json["error"]["location"], "lost_update.c:22");
    assert!(json["states"].as_u64().is_some_and(|s| s > 1), "{json}");
    assert!(
        json["transitions"].as_u64().is_some_and(|t| t > 0),
        "{json}"
    );
    assert!(json["time_ms"].is_number());
    assert!(json["peak_memory_bytes"].as_u64().is_some_and(|m| m > 0));
    assert_eq!(json["memory_model"], "sc");
    assert!(json["sb_bound"].is_null());
    assert_eq!(json["output"], "starting\n");
    let trace = json["trace"].as_array().expect("trace array");
    assert!(
        trace
            .iter()
            .any(|s| s["action"].as_str().is_some_and(|a| a.contains("counter"))),
        "{json}"
    );
    assert!(trace
        .iter()
        .all(|s| s["thread"].is_u64() && s["notes"].is_array()));
    assert!(
        trace.iter().any(|s| s["output"] == "starting\n"),
        "output is interleaved into the trace: {json}"
    );

    let (code, json) = json_of(&["mutex_counter.c", "--memory-model", "sc"]);
    assert_eq!(code, 0);
    assert_eq!(json["verdict"], "pass");
    assert!(json["error"].is_null());
    assert_eq!(json["output"], "counter = 2\n");
}

#[test]
fn compile_error_exits_2_with_clang_diagnostics() {
    let out = run(check().arg("compile_error.c"));
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr
            .contains("use of undeclared identifier 'undeclared_variable'"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("compile_error.c:3:12"),
        "{}",
        out.stderr
    );
    let (code, json) = json_of(&["compile_error.c"]);
    assert_eq!(code, 2);
    assert_eq!(json["verdict"], "error");
    assert_eq!(json["error"]["kind"], "compile-error");
}

#[test]
fn defines_reach_the_compiler() {
    let out = run(check().args([
        "compile_error.c",
        "--memory-model",
        "sc",
        "-D",
        "undeclared_variable=0",
    ]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let out = run(check().args([
        "compile_error.c",
        "--memory-model",
        "sc",
        "--",
        "-Dundeclared_variable=0",
    ]));
    assert_eq!(
        out.code, 0,
        "clang args after --: {}{}",
        out.stdout, out.stderr
    );
}

#[test]
fn missing_file_and_bad_usage_exit_2() {
    let out = run(check().arg("no_such_file.c"));
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("no_such_file.c"), "{}", out.stderr);
    let out = run(check().args(["mutex_counter.c", "--memory-model", "pso"]));
    assert_eq!(out.code, 2, "{}", out.stderr);
    let out = run(&mut check());
    assert_eq!(out.code, 2, "no file: {}", out.stderr);
}

#[test]
fn corrupt_bitcode_exits_2() {
    let bad = scratch("corrupt").join("garbage.bc");
    std::fs::write(&bad, b"BC\xC0\xDEthis is not bitcode").expect("write");
    let out = run(check().arg(&bad).args(["--memory-model", "sc"]));
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("invalid LLVM module"), "{}", out.stderr);
}

#[test]
fn llvm_text_input_skips_compiling() {
    let ll = scratch("ll-input").join("hello.ll");
    let status = std::process::Command::new("clang-19")
        .args(["-S", "-emit-llvm", "-g", "-O0", "-o"])
        .arg(&ll)
        .arg(fixtures().join("check").join("hello.c"))
        .status()
        .expect("clang-19");
    assert!(status.success());
    let out = run(check()
        .arg(&ll)
        .args(["--memory-model", "sc", "--show-output"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("hello from hello.c"), "{}", out.stdout);
}

#[test]
fn show_output_prints_the_output_of_a_pass() {
    let out = run(check().args(["hello.c", "--memory-model", "sc"]));
    assert_eq!(out.code, 0);
    assert!(
        !out.stdout.contains("hello from"),
        "output only on request: {}",
        out.stdout
    );
    let out = run(check().args(["hello.c", "--memory-model", "sc", "--show-output"]));
    assert_eq!(out.code, 0);
    insta::assert_snapshot!("check_show_output", mask(&out.stdout));
}

#[test]
fn max_states_makes_the_run_inconclusive_exit_3() {
    let out = run(check().args([
        "many_states.c",
        "--memory-model",
        "sc",
        "--max-states",
        "100",
    ]));
    assert_eq!(out.code, 3, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.starts_with("verdict: inconclusive"),
        "{}",
        out.stdout
    );
    let (code, json) = json_of(&[
        "many_states.c",
        "--memory-model",
        "sc",
        "--max-states",
        "100",
    ]);
    assert_eq!(code, 3);
    assert_eq!(json["verdict"], "inconclusive");
    // Without the limit the same program passes: the limit, not the program, decided.
    let out = run(check().args(["many_states.c", "--memory-model", "sc"]));
    assert_eq!(out.code, 0, "{}", out.stdout);
}

#[test]
fn outcomes_lists_every_distinct_output() {
    let (code, json) = json_of(&["outcomes.c", "--memory-model", "sc", "--outcomes"]);
    assert_eq!(code, 0);
    assert_eq!(json["outcomes"], serde_json::json!(["a\nb\n", "b\na\n"]));
    let out = run(check().args(["outcomes.c", "--memory-model", "sc", "--outcomes"]));
    assert!(
        out.stdout.contains("outcomes (2):\n  a\\nb\n  b\\na\n"),
        "{}",
        out.stdout
    );
}

#[test]
fn cargo_passes_tso_as_first_argument() {
    let mut cmd = common::cargo_tso();
    cmd.current_dir(fixtures().join("check")).args([
        "tso",
        "check",
        "hello.c",
        "--memory-model",
        "sc",
    ]);
    assert_eq!(run(&mut cmd).code, 0);
}

#[test]
fn emit_instrumented_writes_the_tso_module() {
    let out_ll = scratch("emit").join("instrumented.ll");
    let _ = std::fs::remove_file(&out_ll);
    let _ = run(check()
        .arg("mutex_counter.c")
        .arg("--emit-instrumented")
        .arg(&out_ll));
    let text = std::fs::read_to_string(&out_ll).expect("instrumented module written");
    assert!(
        text.contains("__tso_fence"),
        "calls to the runtime in the module"
    );
}

// Under x86-TSO (needs the store-buffer runtime).

#[test]
fn tso_failure_that_needs_tso_is_classified() {
    let out = run(check().arg("store_buffering.c"));
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("needs TSO: passes under sequential consistency"),
        "{}",
        out.stdout
    );
    let (code, json) = json_of(&["store_buffering.c", "--sb-bound", "4"]);
    assert_eq!(code, 1);
    assert_eq!(json["memory_model"], "tso");
    assert_eq!(json["sb_bound"], 4);
    assert_eq!(json["sc_rerun"]["classification"], "needs-tso");
    assert_eq!(json["sc_rerun"]["verdict"], "pass");
    // The same program under SC passes.
    assert_eq!(
        run(check().args(["store_buffering.c", "--memory-model", "sc"])).code,
        0
    );
}

#[test]
fn tso_failure_that_sc_shares_is_classified() {
    let out = run(check().arg("lost_update.c"));
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("fails under SC too"), "{}", out.stdout);
}

#[test]
fn tso_pass_exits_0() {
    let out = run(check().arg("mutex_counter.c"));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("x86-TSO, sb-bound 32"),
        "{}",
        out.stdout
    );
}

/// Regression: parallel runs sharing one cold cache once removed each other's freshly
/// published module, so a run could find no module to load. Every one of many
/// simultaneous checks of the same file must get its verdict.
#[test]
fn parallel_checks_sharing_a_cold_cache_all_succeed() {
    let cache = scratch("cache-parallel");
    for round in 0..3 {
        let _ = std::fs::remove_dir_all(&cache);
        let children: Vec<_> = (0..8)
            .map(|_| {
                check()
                    .env("CARGO_TSO_CACHE_DIR", &cache)
                    .args(["hello.c", "--memory-model", "sc"])
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .expect("starting cargo-tso")
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().expect("waiting for cargo-tso");
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert_eq!(
                out.status.code(),
                Some(0),
                "round {round}: {stdout}{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                stdout.starts_with("verdict: pass"),
                "round {round}: {stdout}"
            );
        }
    }
}
