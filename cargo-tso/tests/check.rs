//! `cargo tso check` end to end: verdicts, exit codes, human and JSON output.

mod common;

use common::{check, fixtures, mask, run, scratch};
use serde_json::Value;
use std::path::Path;

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
    // The library calls (pthread_mutex_lock, ...) are fenced by the runtime.
    assert!(
        text.contains("__tso_call_fence"),
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

/// Every trace step of a JSON answer: its location and action.
fn trace_steps(json: &Value) -> Vec<(String, String)> {
    json["trace"]
        .as_array()
        .map(|steps| {
            steps
                .iter()
                .map(|s| {
                    (
                        s["location"].as_str().unwrap_or("-").to_owned(),
                        s["action"].as_str().unwrap_or("").to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// What a person must never have to read in a trace: a library header as the place
/// of a step, or a mangled C++ name.
fn assert_readable(steps: &[(String, String)]) {
    assert!(!steps.is_empty());
    for (location, action) in steps {
        assert!(
            !location.starts_with("/usr/") && !location.contains("/include/c++/"),
            "step attributed to a system header: {location} {action}"
        );
        assert!(
            !action
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w.starts_with("_Z")),
            "mangled name in a step: {location} {action}"
        );
    }
}

#[test]
fn memory_is_named_from_debug_info() {
    let (code, json) = json_of(&["store_buffering.c", "--memory-model", "tso"]);
    assert_eq!(code, 1, "{json}");
    let steps = trace_steps(&json);
    let text: Vec<String> = steps.iter().map(|(_, a)| a.clone()).collect();
    // Globals by name, not `x+0`; the thread handles' loads are left out.
    assert!(
        text.iter().any(|a| a.starts_with("store x := 1")),
        "{text:?}"
    );
    assert!(text.iter().all(|a| !a.contains("local#")), "{text:?}");
    assert!(
        text.iter().all(|a| !a.starts_with("load main::")),
        "{text:?}"
    );
    assert_readable(&steps);
}

#[test]
fn cxx_traces_show_the_users_lines_and_demangled_names() {
    let (code, json) = json_of(&["cxx_stack.cpp"]);
    assert_eq!(code, 1, "{json}");
    let steps = trace_steps(&json);
    assert_readable(&steps);
    let text = format!("{steps:?}");
    // `top` is a std::atomic<node*>: its library-internal member is not shown, and the
    // pointers it holds are named. Its `store` is seq_cst: x86's `xchg`, a store and a
    // fence in one step.
    assert!(
        text.contains("store top := &pool[1], then mfence [std::atomic<node*>::store]"),
        "{text}"
    );
    assert!(text.contains("std::thread::join(&main::a)"), "{text}");
    assert!(text.contains("cxx_stack.cpp:"), "{text}");
}

#[test]
fn a_called_function_defined_nowhere_is_reported_before_exploring() {
    let (code, json) = json_of(&["undefined_function.c"]);
    assert_eq!(code, 2, "{json}");
    assert_eq!(json["verdict"], "error");
    assert_eq!(json["states"], 0);
    let message = json["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("`ws_drain` is declared in undefined_function.h:5 but defined in no source of this test; add its file with `.source(...)`"),
        "{message}"
    );
}

#[test]
fn a_function_defined_nowhere_is_refused_even_where_no_run_calls_it() {
    // Called only when argc != 1: a link would still fail, so the program is refused.
    let (code, json) = json_of(&["defined_nowhere_unreached.c"]);
    assert_eq!(code, 2, "{json}");
    assert_eq!(json["verdict"], "error");
    assert_eq!(json["states"], 0);
    let message = json["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("`frobnicate_widgets` is declared in defined_nowhere_unreached.c:3 but defined in no source of this test"),
        "{message}"
    );
}

#[test]
fn an_unmodelled_library_call_is_unsupported_where_a_run_reaches_it() {
    // `tmpnam` (argc != 1) is never reached; sscanf is, in the second thread, after
    // main's store: the verdict names it, its call site and the path to it.
    for model in ["sc", "tso"] {
        let (code, json) = json_of(&["unmodelled_call.c", "--memory-model", model]);
        assert_eq!(code, 2, "{json}");
        assert_eq!(json["verdict"], "error", "{json}");
        assert_eq!(json["error"]["kind"], "unsupported", "{json}");
        let message = json["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("`__isoc99_sscanf`"), "{message}");
        assert!(!message.contains("tmpnam"), "{message}");
        assert_eq!(json["error"]["location"], "unmodelled_call.c:11", "{json}");
        let trace = trace_steps(&json);
        assert!(
            format!("{trace:?}").contains("store ready := 1"),
            "{trace:?}"
        );
    }
}

#[test]
fn verbose_lists_the_unmodelled_library_functions_the_program_calls() {
    let out = run(check().args(["unmodelled_call.c", "--memory-model", "sc", "-v"]));
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains(
            "library functions without a model (unsupported where a run reaches one):\n  tmpnam (called at unmodelled_call.c:18)\n  __isoc99_sscanf (called at unmodelled_call.c:11)\n"
        ),
        "{}",
        out.stdout
    );
    let quiet = run(check().args(["unmodelled_call.c", "--memory-model", "sc"]));
    assert!(!quiet.stdout.contains("tmpnam"), "{}", quiet.stdout);
    // JSON lists them too, in an optional field absent when there are none.
    let (_, json) = json_of(&["unmodelled_call.c", "--memory-model", "sc"]);
    assert_eq!(
        json["unmodelled"],
        serde_json::json!([
            "tmpnam (called at unmodelled_call.c:18)",
            "__isoc99_sscanf (called at unmodelled_call.c:11)"
        ]),
        "{json}"
    );
    let (_, json) = json_of(&["hello.c", "--memory-model", "sc"]);
    assert!(json.get("unmodelled").is_none(), "{json}");
}

#[test]
fn an_unbounded_counter_is_diagnosed_when_a_limit_stops_the_search() {
    let (code, json) = json_of(&["unbounded_counter.c", "--max-states", "2000"]);
    assert_eq!(code, 3, "{json}");
    let diagnosis = json["diagnosis"].to_string();
    assert!(
        diagnosis.contains("`ticks` (unbounded_counter.c:5) took"),
        "{diagnosis}"
    );
    assert!(diagnosis.contains("probably infinite"), "{diagnosis}");
}

/// A check that runs past `--slow-timeout` says so on stderr while it runs, with the
/// search it is in, also when stderr is no terminal; the report on stdout is unchanged.
#[test]
fn a_long_check_says_where_it_is_on_stderr() {
    // Endless: only the timeout ends it, well after the notice is due.
    let out = run(check().args([
        "unbounded_counter.c",
        "--format",
        "json",
        "--timeout",
        "3",
        "--slow-timeout",
        "0.5",
    ]));
    assert_eq!(out.code, 3, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.lines().any(|l| l.starts_with(
            "check of `unbounded_counter.c` has been running for over 0.5s: search, "
        ) && l.contains(" states")),
        "{}",
        out.stderr
    );
    let json: Value = serde_json::from_str(&out.stdout).expect("one JSON report");
    assert_eq!(json["verdict"], "inconclusive", "{json}");
    // Under the threshold, nothing.
    let quiet = run(check().args([
        "unbounded_counter.c",
        "--timeout",
        "1",
        "--slow-timeout",
        "600",
    ]));
    assert_eq!(quiet.code, 3, "{}{}", quiet.stdout, quiet.stderr);
    assert!(
        !quiet.stderr.contains("has been running"),
        "{}",
        quiet.stderr
    );
}

#[test]
fn a_spin_loop_bumping_a_counter_is_diagnosed() {
    // On one worker (depth-first, restarted breadth-first when too deep): under TSO
    // the counter's stores sit in the buffer for the first levels, so it needs more
    // states to reach the depth where they land in memory. (The breadth-first search
    // of several workers stops on the last state of its deepest level, whose path does
    // not always bump the counter: its diagnosis is weaker.)
    for (model, max_states) in [("sc", "3000"), ("tso", "20000")] {
        let (code, json) = json_of(&[
            "spin_with_stats.c",
            "--max-states",
            max_states,
            "--memory-model",
            model,
            "-j",
            "1",
        ]);
        assert_eq!(code, 3, "{json}");
        let diagnosis = json["diagnosis"].to_string();
        assert!(
            diagnosis.contains("`stats.full_hits` (spin_with_stats.c:5)"),
            "{model}: {diagnosis}"
        );
        // The flag the loop waits on takes two values only: not growing.
        assert!(!diagnosis.contains("`ready`"), "{model}: {diagnosis}");
    }
}

#[test]
fn a_finite_search_stopped_early_blames_no_variable() {
    let (code, json) = json_of(&[
        "many_states.c",
        "--memory-model",
        "sc",
        "--max-states",
        "50",
    ]);
    assert_eq!(code, 3, "{json}");
    let diagnosis = json["diagnosis"].to_string();
    assert!(!diagnosis.contains("probably infinite"), "{diagnosis}");
}

#[test]
fn heap_blocks_are_named_by_the_record_they_hold() {
    let (code, json) = json_of(&["heap_publish.c"]);
    assert_eq!(code, 1, "{json}");
    let steps = trace_steps(&json);
    let text = format!("{steps:?}");
    // The shortest counterexample reads the node before it is initialised.
    assert!(text.contains("store head := node#"), "{text}");
    assert!(
        text.contains("load node#") && text.contains("->value"),
        "{text}"
    );
    assert!(!text.contains("heap#"), "{text}");
    assert_readable(&steps);
}

/// One name per object: a race on a heap record's field is named in the message as the
/// trace names it (`stats#N->hits`), not by the untyped block (`heap#N+4`).
#[test]
fn the_message_names_an_object_as_the_trace_does() {
    let (code, json) = json_of(&["heap_race_named.c", "--races", "deny"]);
    assert_eq!(code, 1, "{json}");
    let message = json["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let text = format!("{:?}", trace_steps(&json));
    assert!(message.contains("data race on `stats#"), "{message}");
    assert!(message.contains("->hits`"), "{message}");
    assert!(!message.contains("heap#"), "{message}");
    let name = message.split('`').nth(1).unwrap_or_default().to_owned();
    assert!(text.contains(&name), "{name} not in {text}");
}

/// `-v` says which search ran: without `-j`, the one measured fastest for this
/// machine's cores (`settings::choose_search`); with `-j N`, the one asked for.
#[test]
fn verbose_output_says_which_search_was_chosen() {
    let line = |args: &[&str]| {
        let out = run(check()
            .args(["mutex_counter.c", "-v", "--races", "allow"])
            .args(args));
        assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
        out.stdout
            .lines()
            .find(|l| l.starts_with("search: "))
            .unwrap_or_else(|| panic!("no search line:\n{}", out.stdout))
            .to_string()
    };
    assert_eq!(line(&["-j", "1"]), "search: depth-first on 1 worker (-j 1)");
    assert_eq!(
        line(&["-j", "3"]),
        "search: breadth-first on 3 workers (-j 3)"
    );
    // No breadth-first search is measured faster for any number of cores yet.
    assert!(
        line(&[]).starts_with("search: depth-first on 1 worker ("),
        "{}",
        line(&[])
    );
}

/// `-v` says what thread symmetry did: the groups of interchangeable threads it found,
/// none (workers whose handles `main` keeps are told apart), or that it was off.
#[test]
fn verbose_output_reports_thread_symmetry() {
    let line = |args: &[&str]| {
        let out = run(check().args(args).args(["-v", "--races", "allow"]));
        assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
        out.stdout
            .lines()
            .find(|l| l.starts_with("symmetry:"))
            .unwrap_or_else(|| panic!("no symmetry line:\n{}", out.stdout))
            .to_string()
    };
    // `main`'s `t` still holds the last worker's handle, which tells that one apart.
    assert_eq!(
        line(&["identical_workers.c"]),
        "symmetry: 1 group of interchangeable threads (2)"
    );
    assert_eq!(
        line(&["mutex_counter.c"]),
        "symmetry: no interchangeable threads"
    );
    assert_eq!(
        line(&["identical_workers.c", "--no-symmetry"]),
        "symmetry: off"
    );
}

/// The join-array rule (on by default): on the ticket lock, whose workers `main` keeps
/// in `t[4]` and joins in a loop, `-v` lists them as one group, with race tracking on
/// (the default) and off; `--no-join-symmetry` and `--no-symmetry` switch it off.
#[test]
fn join_symmetry_groups_the_joined_workers() {
    let ticket = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/programs/ticket4x2_acqrel.c");
    let ticket = ticket.to_str().expect("a UTF-8 path");
    let line = |args: &[&str]| {
        let out = run(check().arg(ticket).args(args).arg("-v"));
        assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
        out.stdout
            .lines()
            .find(|l| l.starts_with("symmetry:"))
            .unwrap_or_else(|| panic!("no symmetry line:\n{}", out.stdout))
            .to_string()
    };
    let group = "symmetry: 1 group of interchangeable threads (4)";
    assert_eq!(line(&[]), group);
    assert_eq!(line(&["--races", "allow"]), group);
    assert_eq!(
        line(&["--no-join-symmetry"]),
        "symmetry: no interchangeable threads"
    );
    assert_eq!(line(&["--no-symmetry"]), "symmetry: off");
}

/// `-v` lists the awaits found (`--no-awaits`: off). A spin nobody releases fails as
/// non-terminating either way: with awaits the waiter cannot move, without them the
/// hang check finds a cycle with no way to the program's end.
#[test]
fn verbose_output_reports_awaits_and_no_awaits_switches_them_off() {
    let out = run(check().args(["spin_forever.c", "-v"]));
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("error[non-terminating]")
            && out
                .stdout
                .contains("thread 1 spins at spin_forever.c:9 reading `flag`"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .lines()
            .any(|l| l == "awaits: 1 loop that only reads (waiter at spin_forever.c:9)"),
        "{}",
        out.stdout
    );
    let off = run(check().args(["spin_forever.c", "-v", "--no-awaits"]));
    assert_eq!(off.code, 1, "{}{}", off.stdout, off.stderr);
    assert!(
        off.stdout.contains("error[non-terminating]") && off.stdout.contains("repeats forever"),
        "{}",
        off.stdout
    );
    assert!(
        off.stdout.lines().any(|l| l == "awaits: off"),
        "{}",
        off.stdout
    );
}

/// The names of the properties a run did not establish (`not_established`).
fn not_established(json: &Value) -> Vec<String> {
    json["not_established"]
        .as_array()
        .unwrap_or_else(|| panic!("no not_established list: {json}"))
        .iter()
        .map(|p| p.as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Under TSO the races are searched for without store buffers, after the TSO search:
/// a limit that stops only that search leaves the races open, so the check is
/// inconclusive (it was "ok" before), under `--races deny` and `warn` alike; the time
/// shown covers both searches, and `-v` splits it. The race search with access
/// histories (`--no-race-screen`) is the one the limit stops here; the race screen,
/// which needs no histories, settles the same program within it; so does the join-array
/// rule (1,037 states), switched off here.
#[test]
fn a_limit_on_the_race_search_is_inconclusive_naming_the_races() {
    let limit = [
        "--max-states",
        "2000",
        "--no-race-screen",
        "--no-join-symmetry",
    ];
    // The premise: the TSO search alone finishes within the limit.
    let (code, json) = json_of(&[&["locked_stress.c", "--races", "allow"], &limit[..]].concat());
    assert_eq!(
        (code, &json["verdict"]),
        (0, &Value::from("pass")),
        "{json}"
    );
    assert!(json["states"].as_u64().is_some_and(|s| s < 2000), "{json}");
    for policy in ["deny", "warn"] {
        let (code, json) = json_of(&[&["locked_stress.c", "--races", policy], &limit[..]].concat());
        assert_eq!(code, 3, "{json}");
        assert_eq!(json["verdict"], "inconclusive", "{json}");
        assert_eq!(not_established(&json), ["races"], "{json}");
        assert_eq!(json["inconclusive_reason"], "--max-states 2000 reached");
        let phases: Vec<&str> = json["phases"]
            .as_array()
            .map(|p| p.iter().filter_map(|p| p["phase"].as_str()).collect())
            .unwrap_or_default();
        // `other`: what lies between the searches (loading, instrumenting), so that
        // the time is the check's wall time.
        assert_eq!(phases, ["search", "race-search", "other"], "{json}");
        let sum: f64 = json["phases"]
            .as_array()
            .map(|p| p.iter().filter_map(|p| p["time_ms"].as_f64()).sum())
            .unwrap_or_default();
        let total = json["time_ms"].as_f64().unwrap_or_default();
        assert!((total - sum).abs() < 0.01, "{total} vs {sum}: {json}");
    }
    let out = run(check()
        .args(["locked_stress.c", "--races", "deny", "-v"])
        .args(limit));
    assert_eq!(out.code, 3, "{}{}", out.stdout, out.stderr);
    for line in [
        "verdict: inconclusive — a limit stopped the race search without store buffers; \
         not established: data races",
        "not established: data races (a limit stopped the race search without store buffers)",
        "time by phase: search ",
        ", race search without store buffers ",
    ] {
        assert!(out.stdout.contains(line), "{line}\n{}", out.stdout);
    }
    // The race screen stays within the limit: a pass, decided without histories.
    let (code, json) = json_of(&["locked_stress.c", "--max-states", "2000"]);
    assert_eq!(code, 0, "{json}");
    assert_eq!(json["race_screen"]["result"], "no-conflict", "{json}");
    // Without the limit both searches finish: a pass.
    let (code, json) = json_of(&["locked_stress.c", "--races", "deny", "--no-race-screen"]);
    assert_eq!(code, 0, "{json}");
    assert_eq!(not_established(&json), Vec::<String>::new());
}

/// `-v` says where the race search of a TSO check ran: beside the TSO run (where a
/// check whose search leaves a core idle runs it; `--race-search-order beside` here,
/// whatever this machine's cores) or after it; with the same races either way. A check
/// whose TSO run rules races out runs none and says nothing of it.
#[test]
fn verbose_says_where_the_race_search_ran() {
    let race = |out: &common::Run| {
        out.stdout
            .lines()
            .find(|l| l.starts_with("race search: "))
            .map(str::to_owned)
    };
    let races = |out: &common::Run| -> Vec<String> {
        out.stdout
            .lines()
            .filter(|l| l.contains("data race"))
            .map(str::to_owned)
            .collect()
    };
    // The race search starts when the TSO run's screen finds its first pair
    // (`late_race.c`), or with the TSO run when the screen does not apply (a relaxed
    // store, `c11_race_handoff.c`).
    for (file, racy) in [("late_race.c", "late"), ("c11_race_handoff.c", "data")] {
        let beside = run(check().args([file, "-v", "--race-search-order", "beside"]));
        let after = run(check().args([file, "-v", "--race-search-order", "after"]));
        for out in [&beside, &after] {
            assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
            assert!(
                races(out)
                    .iter()
                    .any(|l| l.contains(&format!("data race on `{racy}`"))),
                "{}",
                out.stdout
            );
        }
        assert_eq!(races(&beside), races(&after));
        assert!(
            race(&beside)
                .is_some_and(|l| l
                    .starts_with("race search: beside the TSO run (--race-search-order beside)")),
            "{}",
            beside.stdout
        );
        assert_eq!(
            race(&after).as_deref(),
            Some("race search: after the TSO run (--race-search-order after)"),
            "{}",
            after.stdout
        );
    }
    // Two workers on a machine of two cores or fewer leave none idle.
    let busy = run(check().args(["late_race.c", "-v", "-j", "2"]));
    if std::thread::available_parallelism().map_or(1, |n| n.get()) <= 2 {
        assert!(
            race(&busy)
                .is_some_and(|l| l.starts_with("race search: after the TSO run (no core idle")),
            "{}",
            busy.stdout
        );
    }
    let none = run(check().args(["mutex_counter.c", "-v", "--race-search-order", "beside"]));
    assert_eq!(race(&none), None, "{}", none.stdout);
}

/// A real data race that only a late part of the search reaches: a limit that stops the
/// search before it is inconclusive, naming races among what it left open (exit 3, no
/// race listed); without the limit the race is the verdict.
#[test]
fn a_race_beyond_the_limit_is_not_established() {
    let (code, json) = json_of(&["late_race.c", "--races", "deny", "--max-states", "2000"]);
    assert_eq!(code, 3, "{json}");
    assert_eq!(json["verdict"], "inconclusive", "{json}");
    assert!(
        not_established(&json).contains(&"races".to_owned()),
        "{json}"
    );
    assert_eq!(json["races"], serde_json::json!([]), "{json}");
    let (code, json) = json_of(&["late_race.c", "--races", "deny"]);
    assert_eq!(
        (code, &json["error"]["kind"]),
        (1, &Value::from("data-race")),
        "{json}"
    );
    // The premise: the race needs more states than the limit allows.
    assert!(json["states"].as_u64() > Some(2000), "{json}");
}

/// A limit that stops the search before an uninitialised value is used leaves
/// definedness open (and everything else the search looks for).
#[test]
fn a_limit_before_an_uninitialised_use_is_inconclusive_naming_definedness() {
    let (code, json) = json_of(&["late_uninitialized.c", "--max-steps", "1000"]);
    assert_eq!(code, 3, "{json}");
    assert_eq!(
        not_established(&json),
        ["errors", "definedness", "hangs", "races"],
        "{json}"
    );
    let (code, json) = json_of(&["late_uninitialized.c"]);
    assert_eq!(
        (code, &json["error"]["kind"]),
        (1, &Value::from("uninitialized"))
    );
}

/// `--timeout` is one budget for the whole check: a phase that starts once it is spent
/// does not search, and the check is inconclusive.
#[test]
fn the_timeout_is_one_budget_for_every_search() {
    let (code, json) = json_of(&["hello.c", "--timeout", "0.000001"]);
    assert_eq!(code, 3, "{json}");
    assert!(
        not_established(&json).contains(&"races".to_owned()),
        "{json}"
    );
}

/// `--robustness` establishes races too: its runs track none (the TSO runtime's natives
/// record no accesses), so it searches them without store buffers, as a plain check
/// does (it passed a racy program before).
#[test]
fn robustness_searches_for_races_too() {
    let (code, json) = json_of(&["racy_writes.c", "--robustness", "--races", "deny"]);
    assert_eq!(
        (code, &json["error"]["kind"]),
        (1, &Value::from("data-race")),
        "{json}"
    );
    let (code, json) = json_of(&["racy_writes.c", "--robustness", "--races", "warn"]);
    assert_eq!(code, 0, "{json}");
    assert_eq!(json["races"].as_array().map(Vec::len), Some(1), "{json}");
    let phases: Vec<&str> = json["phases"]
        .as_array()
        .map(|p| p.iter().filter_map(|p| p["phase"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        phases,
        ["robustness-sc", "race-search", "robustness-tso", "other"],
        "{json}"
    );
}

/// Persistent sets switch the hang check off (`explore::liveness`); a run that cannot
/// look for hangs must say so rather than pass in silence.
#[test]
fn a_search_that_cannot_check_hangs_says_so() {
    let spin =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/programs/hangs/spin_flag_never_set.c");
    let spin = spin.to_str().expect("a UTF-8 path");
    let unchecked = "a pass does not say that every run ends";
    let out = run(check().args([spin, "--memory-model", "sc", "--races", "allow"]));
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(!out.stderr.contains(unchecked), "{}", out.stderr);
    let out = run(check().args([
        spin,
        "--memory-model",
        "sc",
        "--races",
        "allow",
        "--experimental-persistent-sets",
    ]));
    assert!(
        out.stderr.contains(unchecked),
        "{}{}",
        out.stdout,
        out.stderr
    );
}

/// Values read in the type the source declares: an `unsigned` all-ones is 4294967295,
/// an `int` -1 is -1, a `bool` is true, in the steps, the loads' results and the buffer
/// notes alike, under TSO (the runtime's natives) and SC (the engine's own steps).
/// The robustness observations (and so the fence search's) show what a load read in
/// the type declared where it read it, as the trace does.
#[test]
fn observations_show_values_in_their_declared_type() {
    let out = run(check().args(["stale_signed.c", "--robustness"]));
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("and read the stale value -5:"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("4294967291"), "{}", out.stdout);
}

#[test]
fn values_are_shown_in_their_declared_type() {
    let (code, json) = json_of(&["declared_types.c"]);
    assert_eq!(code, 1, "{json}");
    let text = json["trace"].to_string();
    for shown in [
        "store mask := 4294967295",
        "mask=4294967295",
        "store level := -1",
        "level=-1",
        "store ready := true",
        "ready=true",
        "→ true",
        "→ -1",
    ] {
        assert!(text.contains(shown), "{shown} not in {text}");
    }
    assert!(!text.contains("mask=-1"), "{text}");
    assert!(!text.contains("level := 4294967295"), "{text}");
    let (code, json) = json_of(&["declared_types.c", "--memory-model", "sc"]);
    assert_eq!(code, 1, "{json}");
    let text = json["trace"].to_string();
    for shown in [
        "store mask := 4294967295",
        "store level := -1",
        "store ready := true",
        "load level → -1",
    ] {
        assert!(text.contains(shown), "{shown} not in {text}");
    }
}

/// Library internals are folded into the user's call: inside `std::unique_lock` and
/// `std::lock_guard` only the lock and unlock show, not their members (`lk+8`); the
/// block `std::thread` keeps the lambda in (`_State_impl<…>#N+8`) is not shown where
/// the lambda reads its captures. The user's lock, wait and unlock steps remain.
#[test]
fn library_internals_are_folded_into_the_users_call() {
    for model in ["tso", "sc"] {
        let (code, json) = json_of(&["condvar_lambda.cpp", "--memory-model", model]);
        assert_eq!(code, 1, "{json}");
        let steps = trace_steps(&json);
        assert_readable(&steps);
        for (location, action) in &steps {
            let access = action.starts_with("load ") || action.starts_with("store ");
            assert!(
                !(access && (action.contains("lk") || action.contains("main::g"))),
                "{model}: a lock object's members shown: {location} {action}"
            );
            assert!(
                !action.contains("_State_impl"),
                "{model}: std::thread's state shown: {location} {action}"
            );
        }
        let text = format!("{steps:?}");
        for shown in [
            "pthread_mutex_lock(&main::q) [std::unique_lock<std::mutex>::unique_lock]",
            "pthread_mutex_unlock(&main::q) [std::unique_lock<std::mutex>::~unique_lock]",
            "pthread_mutex_lock(&main::q) [std::lock_guard<std::mutex>::lock_guard]",
            "std::condition_variable::wait(&main::q.cv",
            "store main::q.count_ := -1",
        ] {
            assert!(text.contains(shown), "{model}: {shown} not in {text}");
        }
    }
}

/// Each load step of a JSON trace: its action and notes.
fn load_notes(json: &Value) -> Vec<(String, Vec<String>)> {
    let steps = json["trace"].as_array().cloned().unwrap_or_default();
    steps
        .iter()
        .filter_map(|s| {
            let action = s["action"].as_str()?;
            let notes = s["notes"].as_array()?;
            action.starts_with("load ").then(|| {
                let notes = notes.iter().filter_map(|n| n.as_str().map(str::to_owned));
                (action.to_owned(), notes.collect())
            })
        })
        .collect()
}

#[test]
fn a_stale_read_names_the_store_it_read_and_the_newest_store_it_missed_under_c11() {
    let (code, json) = json_of(&["c11_stale_of_two.c", "--memory-model", "c11"]);
    assert_eq!(code, 1, "{json}");
    assert_eq!(json["error"]["kind"], "assertion");
    // T0 read T1's store of x although both of T2's were made: the note names the
    // store it read and the newest of those it had not seen (line 17, not 16).
    assert_eq!(
        load_notes(&json),
        [
            (
                "load done".to_owned(),
                vec!["→ 1 (T2's store at c11_stale_of_two.c:18)".to_owned()]
            ),
            (
                "load x".to_owned(),
                vec![
                    "→ 1 (T1's store at c11_stale_of_two.c:11; stale: T0's view of x is older \
                 than T2's store at c11_stale_of_two.c:17)"
                        .to_owned()
                ]
            ),
        ]
    );
    // The human trace carries the same notes.
    let out = run(check().args(["c11_stale_of_two.c", "--memory-model", "c11"]));
    assert!(
        out.stdout.contains(
            "→ 1 (T1's store at c11_stale_of_two.c:11; stale: T0's view of x is older than \
             T2's store at c11_stale_of_two.c:17)"
        ),
        "{}",
        out.stdout
    );
}

/// `c11_relaxed_handoff.c` with the flag's orders given as `-D`.
fn handoff(store: &str, load: &str, model: &str) -> (i32, Value) {
    json_of(&[
        "c11_relaxed_handoff.c",
        "--memory-model",
        model,
        "-D",
        &format!("FLAG_STORE={store}"),
        "-D",
        &format!("FLAG_LOAD={load}"),
    ])
}

#[test]
fn a_relaxed_handoff_passes_under_tso_and_fails_under_c11() {
    let (code, json) = handoff("memory_order_relaxed", "memory_order_relaxed", "tso");
    assert_eq!(
        (code, &json["verdict"]),
        (0, &Value::from("pass")),
        "{json}"
    );
    let (code, json) = handoff("memory_order_relaxed", "memory_order_relaxed", "c11");
    assert_eq!(code, 1, "{json}");
    assert_eq!(json["error"]["kind"], "assertion");
    assert_eq!(json["memory_model"], "c11");
    assert_eq!(json["history_bound"], 32);
    // The trace says which store each load read and, for the stale one, the store
    // its thread had not seen: the writer and its line.
    assert_eq!(
        load_notes(&json),
        [
            ("load ready".to_owned(), vec![
                "→ 1 (T1's store at c11_relaxed_handoff.c:13)".to_owned()
            ]),
            ("load data".to_owned(), vec![
                "→ 0 (stale: T2's view of data is older than T1's store at c11_relaxed_handoff.c:12)"
                    .to_owned()
            ]),
        ]
    );
    // Release and acquire on the flag fix it.
    let (code, json) = handoff("memory_order_release", "memory_order_acquire", "c11");
    assert_eq!(
        (code, &json["verdict"]),
        (0, &Value::from("pass")),
        "{json}"
    );
    // A release store read by a relaxed load does not.
    let (code, _) = handoff("memory_order_release", "memory_order_relaxed", "c11");
    assert_eq!(code, 1);
}

#[test]
fn the_library_synchronises_plain_data_under_c11() {
    let (code, json) = json_of(&["c11_locked_data.c", "--memory-model", "c11"]);
    assert_eq!(
        (code, &json["verdict"]),
        (0, &Value::from("pass")),
        "{json}"
    );
}

#[test]
fn a_history_bound_that_cuts_is_inconclusive_under_c11() {
    let (code, json) = json_of(&[
        "c11_relaxed_handoff.c",
        "--memory-model",
        "c11",
        "--history-bound",
        "1",
        "-D",
        "FLAG_STORE=memory_order_release",
        "-D",
        "FLAG_LOAD=memory_order_acquire",
    ]);
    assert_eq!(code, 3, "{json}");
    assert_eq!(json["verdict"], "inconclusive");
    assert!(json.to_string().contains("history bound 1"), "{json}");
}

#[test]
fn races_fail_by_default_under_c11() {
    let (code, json) = json_of(&["heap_race_named.c"]);
    assert_eq!(code, 0, "TSO warns: {json}");
    let (code, json) = json_of(&["heap_race_named.c", "--memory-model", "c11"]);
    assert_eq!(code, 1, "{json}");
    assert_eq!(json["error"]["kind"], "data-race");
    let (code, _) = json_of(&[
        "heap_race_named.c",
        "--memory-model",
        "c11",
        "--races",
        "warn",
    ]);
    assert_eq!(code, 0, "an explicit --races wins");
}

/// `cargo tso check FILE --memory-model MODEL ARGS…` in JSON, with `--races deny`.
fn races_denied(file: &str, model: &str, extra: &[&str]) -> (i32, Value) {
    let mut args = vec![file, "--memory-model", model, "--races", "deny"];
    args.extend_from_slice(extra);
    json_of(&args)
}

/// The check passed, with no race listed.
fn assert_race_free((code, json): (i32, Value)) {
    assert_eq!(
        (code, &json["verdict"]),
        (0, &Value::from("pass")),
        "{json}"
    );
    assert_eq!(json["races"], Value::Array(Vec::new()), "{json}");
}

/// The check failed on a data race on `location`, naming two plain accesses.
fn assert_races_on(location: &str, (code, json): (i32, Value)) {
    assert_eq!(code, 1, "{json}");
    assert_eq!(json["error"]["kind"], "data-race", "{json}");
    let message = json["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!("data race on `{location}`"))
            && message.matches("(not atomic)").count() == 2,
        "{message}"
    );
}

#[test]
fn a_race_only_a_weak_execution_reaches_fails_under_c11() {
    // Both threads write `z` only when both relaxed loads read the initial 0: the weak
    // outcome of store buffering, which SC never reaches.
    assert_race_free(races_denied("c11_weak_only_race.c", "sc", &[]));
    assert_races_on("z", races_denied("c11_weak_only_race.c", "c11", &[]));
    // C11 denies races by default.
    let (code, json) = json_of(&["c11_weak_only_race.c", "--memory-model", "c11"]);
    assert_eq!(
        (code, &json["error"]["kind"]),
        (1, &Value::from("data-race"))
    );
    // Under warn the race is listed and the verdict stays a pass.
    let (code, json) = json_of(&[
        "c11_weak_only_race.c",
        "--memory-model",
        "c11",
        "--races",
        "warn",
    ]);
    assert_eq!(code, 0, "{json}");
    assert_eq!(json["races"][0]["memory"], "z", "{json}");
}

#[test]
fn a_stale_release_message_synchronises_and_a_newer_relaxed_one_does_not_under_c11() {
    // The reader may read the publisher's release store while another thread's
    // relaxed store is newer: what it acquires is the message it read.
    assert_race_free(races_denied("c11_stale_release.c", "c11", &[]));
    let touch_on_2 = ["-D", "TOUCH_ON=2"];
    assert_races_on(
        "data",
        races_denied("c11_stale_release.c", "c11", &touch_on_2),
    );
}

#[test]
fn fences_hand_over_plain_data_through_relaxed_atomics_under_c11() {
    assert_race_free(races_denied("c11_fence_handoff.c", "c11", &[]));
    let no_fences = ["-D", "NO_FENCES"];
    assert_races_on(
        "data",
        races_denied("c11_fence_handoff.c", "c11", &no_fences),
    );
}

#[test]
fn an_rmw_continues_a_release_sequence_under_c11() {
    assert_race_free(races_denied("c11_release_sequence.c", "c11", &[]));
    let plain = ["-D", "PLAIN_STORE"];
    assert_races_on(
        "data",
        races_denied("c11_release_sequence.c", "c11", &plain),
    );
}

/// `cargo tso check FILE --memory-model MODEL --races allow ARGS…` in JSON.
fn races_allowed(file: &str, model: &str, extra: &[&str]) -> (i32, Value) {
    let mut args = vec![file, "--memory-model", model, "--races", "allow"];
    args.extend_from_slice(extra);
    json_of(&args)
}

/// The check failed on the program's assertion.
fn assert_assertion_fails((code, json): (i32, Value)) {
    assert_eq!(code, 1, "{json}");
    assert_eq!(json["error"]["kind"], "assertion", "{json}");
}

#[test]
fn a_racy_plain_load_reads_a_write_it_has_not_seen_under_c11_as_on_x86() {
    assert_assertion_fails(races_allowed("c11_plain_unseen_write.c", "tso", &[]));
    assert_assertion_fails(races_allowed("c11_plain_unseen_write.c", "c11", &[]));
    assert_races_on("x", races_denied("c11_plain_unseen_write.c", "c11", &[]));
    // After the join the load is race-free and has the newest write only.
    let join_first = ["-D", "JOIN_FIRST"];
    assert_race_free(races_denied("c11_plain_unseen_write.c", "c11", &join_first));
}

#[test]
fn a_racy_plain_load_after_an_sc_fence_reads_what_the_sc_order_allows_under_c11() {
    // Once the seq_cst store is ordered before the fence, only its message is
    // consistent to read: an outcome, not "unsupported".
    assert_assertion_fails(races_allowed("c11_plain_after_sc_fence.c", "tso", &[]));
    assert_assertion_fails(races_allowed("c11_plain_after_sc_fence.c", "c11", &[]));
}

#[test]
fn fence_suggestions_are_refused_under_sc() {
    let out = run(check().args([
        "c11_locked_data.c",
        "--memory-model",
        "sc",
        "--suggest-fences",
    ]));
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("--memory-model tso or c11"),
        "{}",
        out.stderr
    );
    let out = run(check().args(["c11_locked_data.c", "--memory-model", "c11", "--robustness"]));
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("--memory-model tso"), "{}", out.stderr);
}

#[test]
fn a_c11_failure_is_classified_by_its_runs_under_tso_and_sc() {
    // A relaxed handoff: x86-TSO keeps the stores in order, so it passes on x86.
    let (code, json) = handoff("memory_order_relaxed", "memory_order_relaxed", "c11");
    assert_eq!(code, 1, "{json}");
    let x86 = &json["x86_rerun"];
    assert_eq!(x86["classification"], "needs-c11", "{json}");
    assert_eq!(x86["tso"]["verdict"], "pass", "{json}");
    assert_eq!(x86["sc"], Value::Null, "a TSO pass is an SC pass: {json}");
    assert_eq!(json["sc_rerun"], Value::Null, "{json}");
    let phases = json["phases"].to_string();
    assert!(phases.contains("tso-rerun"), "{phases}");
    let out = run(check().args([
        "c11_relaxed_handoff.c",
        "--memory-model",
        "c11",
        "-D",
        "FLAG_STORE=memory_order_relaxed",
        "-D",
        "FLAG_LOAD=memory_order_relaxed",
    ]));
    assert!(
        out.stdout.contains("needs C11 weakness (passes on x86)"),
        "{}",
        out.stdout
    );
    // Relaxed store buffering: x86 has it too, through its store buffers.
    let (code, json) = json_of(&["c11_x86_classes.c", "--memory-model", "c11", "-D", "BUG_SB"]);
    assert_eq!(code, 1, "{json}");
    let x86 = &json["x86_rerun"];
    assert_eq!(x86["classification"], "needs-tso", "{json}");
    assert_eq!(
        (&x86["tso"]["verdict"], &x86["sc"]["verdict"]),
        (&Value::from("fail"), &Value::from("pass")),
        "{json}"
    );
    assert!(
        x86["message"]
            .as_str()
            .unwrap()
            .starts_with("fails on x86 too"),
        "{json}"
    );
    // A lost update: sequential consistency has it too.
    let out = run(check().args(["c11_x86_classes.c", "--memory-model", "c11"]));
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("fails on x86 too: fails under x86-TSO and under SC too"),
        "{}",
        out.stdout
    );
}

#[test]
fn only_c11_failures_other_than_races_are_rerun_on_x86() {
    // A data race is undefined behaviour wherever it runs: no re-run.
    let (code, json) = json_of(&["heap_race_named.c", "--memory-model", "c11"]);
    assert_eq!(
        (code, &json["error"]["kind"]),
        (1, &Value::from("data-race"))
    );
    assert_eq!(json.get("x86_rerun"), None, "{json}");
    // A pass is not re-run, nor is a failure under another model.
    let (code, json) = handoff("memory_order_release", "memory_order_acquire", "c11");
    assert_eq!(code, 0, "{json}");
    assert_eq!(json.get("x86_rerun"), None, "{json}");
    let (code, json) = json_of(&["c11_x86_classes.c", "-D", "BUG_SB"]);
    assert_eq!(code, 1, "{json}");
    assert_eq!(json.get("x86_rerun"), None, "{json}");
    assert_eq!(json["sc_rerun"]["classification"], "needs-tso", "{json}");
}

#[test]
fn a_limit_that_stops_the_x86_rerun_leaves_the_classification_unknown() {
    // The C11 failure is found within 10 states; the TSO re-run, which would pass,
    // needs more: it stops, and nothing is claimed about x86.
    let (code, json) = json_of(&[
        "c11_relaxed_handoff.c",
        "--memory-model",
        "c11",
        "--max-states",
        "10",
        "-D",
        "FLAG_STORE=memory_order_relaxed",
        "-D",
        "FLAG_LOAD=memory_order_relaxed",
    ]);
    assert_eq!(code, 1, "the failure stands: {json}");
    let x86 = &json["x86_rerun"];
    assert_eq!(x86["classification"], "unknown", "{json}");
    assert_eq!(x86["tso"]["verdict"], "inconclusive", "{json}");
    assert!(
        x86["message"].as_str().unwrap().contains("no verdict"),
        "{json}"
    );
}

#[test]
fn a_weak_compare_exchange_may_fail_spuriously_under_c11_only() {
    // C's `atomic_compare_exchange_weak` and libstdc++'s `compare_exchange_weak`
    // (both `cmpxchg weak`), assumed to succeed on the value they expect.
    for file in ["c11_weak_cas_once.c", "c11_weak_cas_once.cpp"] {
        // x86's `lock cmpxchg` never fails spuriously.
        for model in ["sc", "tso"] {
            let (code, json) = json_of(&[file, "--memory-model", model]);
            assert_eq!(
                (code, &json["verdict"]),
                (0, &Value::from("pass")),
                "{file} under {model}: {json}"
            );
        }
        let (code, json) = json_of(&[file, "--memory-model", "c11"]);
        assert_eq!(code, 1, "{file}: {json}");
        assert_eq!(json["error"]["kind"], "assertion", "{file}: {json}");
        let trace = json["trace"].to_string();
        assert!(
            trace.contains("weak cmpxchg x") && trace.contains("failed spuriously"),
            "{file}: {trace}"
        );
    }
}

#[test]
fn a_weak_compare_exchange_retry_loop_passes_under_c11() {
    // Spurious failures make each retry loop a cycle, with a way out wherever the
    // compare-exchange can succeed: no false alarm and no hang.
    for model in ["sc", "tso", "c11"] {
        let (code, json) = json_of(&["c11_weak_cas_retry.c", "--memory-model", model]);
        assert_eq!(
            (code, &json["verdict"]),
            (0, &Value::from("pass")),
            "{model}: {json}"
        );
    }
    // A Treiber push's retry stores `n->next` again: the same value adds no history,
    // so the spurious retries come back to states already seen (no history bound hit).
    for model in ["sc", "tso", "c11"] {
        let (code, json) = json_of(&["c11_weak_cas_push.c", "--memory-model", model]);
        assert_eq!(
            (code, &json["verdict"]),
            (0, &Value::from("pass")),
            "{model}: {json}"
        );
    }
    // A loop whose compare-exchange can never succeed still hangs, weak or not.
    for model in ["sc", "tso", "c11"] {
        let (code, json) = json_of(&[
            "c11_weak_cas_retry.c",
            "--memory-model",
            model,
            "-D",
            "NEVER_EXPECTED",
        ]);
        assert_eq!(code, 1, "{model}: {json}");
        assert_eq!(json["error"]["kind"], "non-terminating", "{model}: {json}");
    }
}

/// `--experimental-dpor` (hidden, off by default) says in `-v` whether it ran: on one
/// worker it does; with `--robustness` (every state is compared) and with more than one
/// worker (the breadth-first search) it is off, and the verdict is the full search's.
#[test]
fn experimental_dpor_says_in_verbose_output_whether_it_ran() {
    let search_line = |args: &[&str]| {
        let out = run(check().args(args));
        assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
        out.stdout
            .lines()
            .find(|l| l.starts_with("search:"))
            .unwrap_or_default()
            .to_owned()
    };
    let dpor = ["stale_signed.c", "-v", "--experimental-dpor"];
    let on = search_line(&[&dpor[..], &["-j", "1"]].concat());
    assert!(
        on.contains("--experimental-dpor: dynamic partial-order reduction"),
        "{on}"
    );
    let workers = search_line(&[&dpor[..], &["-j", "2"]].concat());
    assert!(
        workers.contains("--experimental-dpor off: it applies to the depth-first search"),
        "{workers}"
    );
    let robustness = search_line(&[&dpor[..], &["-j", "1", "--robustness"]].concat());
    assert!(
        robustness.contains("--experimental-dpor off: --robustness compares every state"),
        "{robustness}"
    );
}
