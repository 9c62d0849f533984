//! `--suggest-fences` and `--robustness` end to end: the suggestion on the
//! mutual-exclusion corpus (checked against the known-correct fenced versions and
//! by compiling the suggestion into the source), robustness verdicts on robust and
//! non-robust programs, JSON fields and snapshots of the human output.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use common::{cargo_tso, check, fixtures, mask, run, scratch};
use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn corpus(rel: &str) -> PathBuf {
    repo().join("tests").join("programs").join(rel)
}

/// `cargo-tso check` run in the robustness fixtures directory.
fn check_robustness_fixture() -> Command {
    let mut cmd = cargo_tso();
    cmd.current_dir(fixtures().join("robustness")).arg("check");
    cmd
}

fn json_run(cmd: &mut Command) -> (i32, Value) {
    let out = run(cmd.args(["--format", "json"]));
    let value: Value = serde_json::from_str(out.stdout.trim())
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}\n{}", out.stdout, out.stderr));
    (out.code, value)
}

fn check_file(path: &Path) -> Command {
    let mut cmd = cargo_tso();
    cmd.arg("check").arg(path);
    cmd
}

/// Fences written in a known-correct fenced version.
fn written_fences(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).expect("fenced version");
    text.lines()
        .filter(|l| {
            let l = l.trim();
            !l.starts_with("#define")
                && (l.starts_with("MFENCE();") || l.starts_with("atomic_thread_fence("))
        })
        .count()
}

/// A copy of `source` with an mfence after each suggested line, in a scratch dir.
fn with_fences_written(source: &Path, lines: &[u64]) -> PathBuf {
    let text = std::fs::read_to_string(source).expect("source");
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        out.push_str(line);
        out.push('\n');
        if lines.contains(&(i as u64 + 1)) {
            out.push_str("__asm__ __volatile__(\"mfence\" ::: \"memory\");\n");
        }
    }
    let dir = scratch("fenced-by-suggestion");
    let path = dir.join(source.file_name().expect("file name"));
    std::fs::write(&path, out).expect("write");
    path
}

#[test]
fn suggestion_for_store_buffering_is_one_fence_per_thread() {
    let out = run(check().args(["store_buffering.c", "--suggest-fences"]));
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    insta::assert_snapshot!("suggest_fences_store_buffering", mask(&out.stdout));
}

#[test]
fn fence_suggestion_json_has_the_contract_fields() {
    let (code, json) = json_run(check().args(["store_buffering.c", "--suggest-fences"]));
    assert_eq!(code, 1);
    let s = &json["fence_suggestion"];
    assert_eq!(s["verified"], true, "{json}");
    assert_eq!(s["minimal"], true, "{json}");
    let fences = s["fences"].as_array().expect("fences");
    assert_eq!(fences.len(), 2, "{json}");
    // One round adding candidates, then one re-check per fence.
    assert!(
        s["checks"].as_u64().expect("checks") > fences.len() as u64,
        "{json}"
    );
    let mut lines: Vec<u64> = fences.iter().map(|f| f["line"].as_u64().unwrap()).collect();
    lines.sort_unstable();
    assert_eq!(lines, vec![11, 18]);
    for f in fences {
        assert_eq!(f["file"], "store_buffering.c");
        assert!(f["column"].as_u64().is_some_and(|c| c > 0), "{f}");
        assert!(
            ["x = 1;", "y = 1;"].contains(&f["after"].as_str().unwrap_or("")),
            "{f}"
        );
    }
}

#[test]
fn no_suggestion_when_the_failure_happens_under_sc_too() {
    let out = run(check().args(["lost_update.c", "--suggest-fences"]));
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains(
            "fence suggestion: none — the failure also happens under sequential consistency"
        ),
        "{}",
        out.stdout
    );
    let (_, json) = json_run(check().args(["lost_update.c", "--suggest-fences"]));
    assert_eq!(json["fence_suggestion"], Value::Null);
}

#[test]
fn suggest_fences_and_robustness_need_the_tso_model() {
    for flag in ["--suggest-fences", "--robustness"] {
        let out = run(check().args(["store_buffering.c", flag, "--memory-model", "sc"]));
        assert_eq!(out.code, 2, "{flag}: {}{}", out.stdout, out.stderr);
        assert!(out.stderr.contains("--memory-model tso"), "{}", out.stderr);
    }
}

/// The corpus programs that fail only under TSO, each with its known-correct fenced version.
const MUTEX_CORPUS: &[(&str, &str)] = &[
    ("mutex/peterson.c", "mutex/peterson_fenced.c"),
    ("mutex/dekker.c", "mutex/dekker_fenced.c"),
    ("mutex/bakery.c", "mutex/bakery_fenced.c"),
    ("mutex/szymanski.c", "mutex/szymanski_fenced.c"),
    ("mutex/burns.c", "mutex/burns_fenced.c"),
    ("tso/chase_lev_deque_unfenced.c", "tso/chase_lev_deque.c"),
];

#[test]
fn mutual_exclusion_corpus_needs_no_more_fences_than_the_fenced_versions() {
    for (program, fenced) in MUTEX_CORPUS {
        let path = corpus(program);
        let start = Instant::now();
        let (code, json) = json_run(check_file(&path).arg("--suggest-fences"));
        let took = start.elapsed();
        assert_eq!(code, 1, "{program} fails under TSO as written: {json}");
        assert_eq!(json["sc_rerun"]["classification"], "needs-tso", "{program}");
        let s = &json["fence_suggestion"];
        assert_eq!(s["verified"], true, "{program}: {json}");
        assert_eq!(s["minimal"], true, "{program}: {json}");
        let fences = s["fences"].as_array().expect("fences");
        let written = written_fences(&corpus(fenced));
        assert!(written > 0, "{fenced} has fences");
        assert!(
            !fences.is_empty() && fences.len() <= written,
            "{program}: {} suggested fences, the fenced version has {written}: {s}",
            fences.len()
        );
        let lines: Vec<u64> = fences.iter().map(|f| f["line"].as_u64().unwrap()).collect();
        eprintln!(
            "{program}: fences after lines {lines:?}, {} checks, {:.2}s (fenced version: {written})",
            s["checks"],
            took.as_secs_f64()
        );
        // Independently of the search: the suggestion written into the source passes.
        let rewritten = with_fences_written(&path, &lines);
        let out = run(&mut check_file(&rewritten));
        assert_eq!(
            out.code, 0,
            "{program} with the suggested fences written:\n{}",
            out.stdout
        );
    }
}

#[test]
fn robust_programs_are_robust() {
    let robust: Vec<(Command, &str)> = vec![
        (
            check_file(&corpus("tso/sb_mfence_assert.c")),
            "SB with fences",
        ),
        (check_file(&corpus("tso/message_passing.c")), "MP"),
        (
            check_file(&corpus("threads/mutex_counter.c")),
            "mutex-protected counter",
        ),
        (
            check_file(&corpus("mutex/peterson_fenced.c")),
            "fenced Peterson",
        ),
        // Transitions end at different points under SC and TSO here (an action is
        // visible only while another thread runs): states must be compared settled.
        (
            check_file(&corpus("threads/thread_local.c")),
            "thread-local counters",
        ),
        (
            check_file(&corpus("threads/condvar_prodcons.c")),
            "condition variables",
        ),
        (
            {
                let mut c = check_robustness_fixture();
                c.arg("spsc_ring.c");
                c
            },
            "SPSC ring",
        ),
        (
            {
                let mut c = check_robustness_fixture();
                c.arg("seqlock.cpp");
                c
            },
            "seqlock",
        ),
    ];
    for (mut cmd, name) in robust {
        let (code, json) = json_run(cmd.arg("--robustness"));
        assert_eq!(code, 0, "{name}: {json}");
        let r = &json["robustness"];
        assert_eq!(r["robust"], true, "{name}: {json}");
        assert_eq!(r["result"], "robust");
        assert!(r["sc_states"].as_u64().is_some_and(|n| n > 0), "{name}");
        assert!(
            r["compared"].as_u64() >= r["tso_states"].as_u64(),
            "{name}: every TSO state is compared: {r}"
        );
    }
}

#[test]
fn non_robust_programs_are_reported_with_the_stale_read() {
    for (path, name) in [
        (corpus("tso/sb_assert.c"), "SB"),
        (corpus("mutex/dekker.c"), "Dekker without fences"),
        (
            fixtures().join("robustness").join("sb_no_assert.c"),
            "SB without assertion",
        ),
    ] {
        let (code, json) = json_run(check_file(&path).arg("--robustness"));
        assert_eq!(code, 1, "{name}: {json}");
        assert_eq!(json["robustness"]["robust"], false, "{name}: {json}");
        assert_eq!(json["error"]["kind"], "not-robust", "{name}: {json}");
        let observations = json["robustness"]["observations"]
            .as_array()
            .expect("observations");
        assert!(
            observations.iter().any(|o| o["kind"] == "stale-read"),
            "{name}: {json}"
        );
        assert!(
            observations
                .iter()
                .any(|o| o["kind"] == "load-passed-store"),
            "{name}: {json}"
        );
    }
}

#[test]
fn a_program_with_no_failing_assertion_can_be_not_robust() {
    let path = fixtures().join("robustness").join("sb_no_assert.c");
    for model in ["sc", "tso"] {
        let out = run(check_file(&path).args(["--memory-model", model]));
        assert_eq!(out.code, 0, "{model}: {}", out.stdout);
    }
    let out = run(check_robustness_fixture().args([
        "sb_no_assert.c",
        "--robustness",
        "--suggest-fences",
    ]));
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    insta::assert_snapshot!("robustness_sb_no_assert", mask(&out.stdout));
}

#[test]
fn robust_output() {
    let out = run(check_robustness_fixture().args(["spsc_ring.c", "--robustness"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    insta::assert_snapshot!("robustness_spsc_ring", mask(&out.stdout));
}

#[test]
fn fences_restoring_robustness_of_dekker_are_no_more_than_the_fenced_version() {
    let (code, json) =
        json_run(check_file(&corpus("mutex/dekker.c")).args(["--robustness", "--suggest-fences"]));
    assert_eq!(code, 1, "{json}");
    let s = &json["fence_suggestion"];
    assert_eq!(s["verified"], true, "{json}");
    assert_eq!(s["minimal"], true, "{json}");
    let n = s["fences"].as_array().map_or(0, Vec::len);
    let written = written_fences(&corpus("mutex/dekker_fenced.c"));
    assert!(n >= 1 && n <= written, "{n} fences vs {written}: {s}");
    // The fenced version is robust, so the bound is tight enough to mean something.
    let (code, _) = json_run(check_file(&corpus("mutex/dekker_fenced.c")).arg("--robustness"));
    assert_eq!(code, 0);
}

#[test]
fn tso_test_robust_fails_a_test_that_is_not_robust() {
    let mut cmd = cargo_tso();
    cmd.current_dir(fixtures().join("robust-ws"))
        .args(["tso", "test", "--test-threads", "1"]);
    let out = run(&mut cmd);
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("test fixture-robust::robustness::message_passing ... ok"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("test fixture-robust::robustness::store_buffering ... FAILED"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("error[not-robust]"), "{}", out.stdout);
    assert!(
        out.stdout.contains("read the stale value 0"),
        "{}",
        out.stdout
    );
}

#[test]
fn cargo_tso_test_suggests_fences_for_a_test_that_fails_only_under_tso() {
    let out = run(common::test().args([
        "-p",
        "fixture-litmus",
        "store_buffering::plain",
        "--suggest-fences",
    ]));
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("fence suggestion (2 fences"),
        "{}",
        out.stdout
    );
    for line in [12, 19] {
        assert!(
            out.stdout
                .contains(&format!("after the store at store_buffering.c:{line}:")),
            "{}",
            out.stdout
        );
    }
    assert!(
        out.stdout.contains(
            "verified: passes under x86-TSO (sb-bound 32) with these 2 fences; each one is needed"
        ),
        "{}",
        out.stdout
    );
}

#[test]
fn a_limit_makes_robustness_inconclusive_never_robust() {
    let (code, json) = json_run(check_file(&corpus("mutex/peterson_fenced.c")).args([
        "--robustness",
        "--max-states",
        "20",
    ]));
    assert_eq!(code, 3, "{json}");
    assert_eq!(json["verdict"], "inconclusive");
    assert_eq!(json["robustness"]["result"], "undecided");
    assert_eq!(json["robustness"]["robust"], Value::Null);
    let out = run(check_file(&corpus("mutex/peterson_fenced.c"))
        .args(["--robustness", "--reference-machine"]));
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
}

// --- `--suggest-fences` under `--memory-model c11` ---

/// `cargo-tso check FILE --memory-model c11 --suggest-fences --format json`, in the
/// check fixtures directory.
fn c11_suggestion(file: &str) -> (i32, Value) {
    json_run(check().args([file, "--memory-model", "c11", "--suggest-fences"]))
}

/// `cargo-tso check FILE --memory-model c11`'s exit code.
fn c11_verdict(path: &Path) -> i32 {
    let out = run(check_file(path).args(["--memory-model", "c11"]));
    assert!(
        matches!(out.code, 0 | 1),
        "the check decided: {}{}",
        out.stdout,
        out.stderr
    );
    out.code
}

/// The source with the suggested changes `orders` (`(line, order)`: the line's one
/// `memory_order_relaxed` written `memory_order_<order>`, or `__ATOMIC_RELAXED`
/// `__ATOMIC_<ORDER>`) and `fences` (`(line, placement, order)`, as the compiler's
/// builtin, which C and C++ both have) written by hand, in a scratch directory named
/// `name`.
fn fixed_by_hand(
    source: &Path,
    name: &str,
    orders: &[(u64, String)],
    fences: &[(u64, String, String)],
) -> PathBuf {
    let text = std::fs::read_to_string(source).expect("source");
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        let n = i as u64 + 1;
        let fence = |placement: &str| {
            fences
                .iter()
                .filter(|(l, p, _)| *l == n && p == placement)
                .map(|(_, _, o)| format!("__atomic_thread_fence(__ATOMIC_{});\n", o.to_uppercase()))
                .collect::<String>()
        };
        out.push_str(&fence("before"));
        match orders.iter().find(|(l, _)| *l == n) {
            Some((_, to)) => {
                let written = [
                    ("memory_order_relaxed", format!("memory_order_{to}")),
                    (
                        "__ATOMIC_RELAXED",
                        format!("__ATOMIC_{}", to.to_uppercase()),
                    ),
                ];
                let (relaxed, stronger) = written
                    .iter()
                    .find(|(relaxed, _)| line.matches(relaxed).count() == 1)
                    .unwrap_or_else(|| panic!("one relaxed order on {line}"));
                out.push_str(&line.replace(relaxed, stronger));
            }
            None => out.push_str(line),
        }
        out.push('\n');
        out.push_str(&fence("after"));
    }
    let dir = scratch(name);
    let path = dir.join(source.file_name().expect("file name"));
    std::fs::write(&path, out).expect("write");
    path
}

/// The suggestion's orders and fences, as `fixed_by_hand` takes them.
type Edits = (Vec<(u64, String)>, Vec<(u64, String, String)>);

fn suggested(json: &Value) -> Edits {
    let s = &json["fence_suggestion"];
    let text = |v: &Value| v.as_str().expect("a string").to_owned();
    let orders = s["orders"]
        .as_array()
        .expect("orders")
        .iter()
        .map(|o| (o["line"].as_u64().expect("line"), text(&o["to"])))
        .collect();
    let fences = s["fences"]
        .as_array()
        .expect("fences")
        .iter()
        .map(|f| {
            (
                f["line"].as_u64().expect("line"),
                text(&f["placement"]),
                text(&f["order"]),
            )
        })
        .collect();
    (orders, fences)
}

fn check_fixture(file: &str) -> PathBuf {
    fixtures().join("check").join(file)
}

#[test]
fn c11_message_passing_needs_release_on_the_flag_store_and_acquire_on_its_load() {
    let (code, json) = c11_suggestion("c11_mp_relaxed.c");
    assert_eq!(code, 1, "{json}");
    let s = &json["fence_suggestion"];
    assert_eq!(s["result"], "verified", "{s}");
    assert_eq!(
        (&s["minimal"], &s["smallest"]),
        (&Value::Bool(true), &Value::Bool(true))
    );
    let (orders, fences) = suggested(&json);
    assert_eq!(
        orders,
        vec![(13, "release".to_owned()), (19, "acquire".to_owned())],
        "{s}"
    );
    assert!(fences.is_empty(), "{s}");
    assert_eq!(s["orders"][0]["access"], "store");
    assert_eq!(s["orders"][0]["from"], "relaxed");
    assert_eq!(
        s["orders"][0]["rewritten"],
        "atomic_store_explicit(&ready, 1, memory_order_release);"
    );
    // Written into the source by hand, the suggestion passes; either change alone does not.
    let source = check_fixture("c11_mp_relaxed.c");
    let fixed = fixed_by_hand(&source, "c11-mp-fixed", &orders, &fences);
    assert_eq!(c11_verdict(&fixed), 0);
    for (i, one) in orders.iter().enumerate() {
        let alone = fixed_by_hand(
            &source,
            &format!("c11-mp-only-{i}"),
            std::slice::from_ref(one),
            &[],
        );
        assert_eq!(c11_verdict(&alone), 1, "{one:?} alone must not pass");
    }
}

#[test]
fn c11_store_buffering_needs_seq_cst() {
    let source = corpus("tso/sb_relaxed_atomics.c");
    let (code, json) = c11_suggestion(source.to_str().expect("a UTF-8 path"));
    assert_eq!(code, 1, "{json}");
    let s = &json["fence_suggestion"];
    assert_eq!(s["result"], "verified", "{s}");
    let (orders, fences) = suggested(&json);
    assert!(!orders.is_empty() || !fences.is_empty(), "{s}");
    // Release and acquire do not forbid store buffering: every change is seq_cst.
    assert!(orders.iter().all(|(_, o)| o == "seq_cst"), "{s}");
    assert!(fences.iter().all(|(_, _, o)| o == "seq_cst"), "{s}");
    assert_eq!(
        s["orders"][0]["rewritten"], "__atomic_store_n(&x, 1, __ATOMIC_SEQ_CST);",
        "{s}"
    );
    let fixed = fixed_by_hand(&source, "c11-sb-fixed", &orders, &fences);
    assert_eq!(c11_verdict(&fixed), 0);
    // The acquire/release version of the same accesses still fails.
    let text = std::fs::read_to_string(&source).expect("source");
    let weaker: Vec<(u64, String)> = orders
        .iter()
        .map(|(line, _)| {
            let is_load = text
                .lines()
                .nth(*line as usize - 1)
                .expect("line")
                .contains("load");
            (
                *line,
                if is_load { "acquire" } else { "release" }.to_owned(),
            )
        })
        .collect();
    let weaker = fixed_by_hand(&source, "c11-sb-acq-rel", &weaker, &[]);
    assert_eq!(c11_verdict(&weaker), 1);
}

#[test]
fn c11_a_data_race_through_a_relaxed_flag_is_fixed_by_release_and_acquire() {
    let (code, json) = c11_suggestion("c11_race_handoff.c");
    assert_eq!(code, 1, "{json}");
    assert_eq!(json["error"]["kind"], "data-race", "{json}");
    let s = &json["fence_suggestion"];
    assert_eq!(s["result"], "verified", "{s}");
    let (orders, fences) = suggested(&json);
    assert_eq!(
        orders,
        vec![(13, "release".to_owned()), (19, "acquire".to_owned())],
        "{s}"
    );
    let fixed = fixed_by_hand(
        &check_fixture("c11_race_handoff.c"),
        "c11-race-fixed",
        &orders,
        &fences,
    );
    assert_eq!(c11_verdict(&fixed), 0);
}

#[test]
fn c11_a_failure_under_sc_has_no_ordering_fix() {
    let (code, json) = c11_suggestion("c11_fails_under_sc.c");
    assert_eq!(code, 1, "{json}");
    let s = &json["fence_suggestion"];
    assert_eq!(s["result"], "fails-under-sc", "{s}");
    assert_eq!(
        (&s["verified"], &s["checks"]),
        (&Value::Bool(false), &Value::from(0))
    );
    let out = run(check().args([
        "c11_fails_under_sc.c",
        "--memory-model",
        "c11",
        "--suggest-fences",
    ]));
    assert!(
        out.stdout
            .contains("the failure also happens under sequential consistency, so no memory order or fence can fix it"),
        "{}",
        out.stdout
    );
}

#[test]
fn c11_human_output_names_each_access_and_its_new_text() {
    let out = run(check().args([
        "c11_mp_relaxed.c",
        "--memory-model",
        "c11",
        "--suggest-fences",
    ]));
    assert_eq!(out.code, 1);
    for shown in [
        "ordering suggestion (2 changes",
        "1. make the store at c11_mp_relaxed.c:13 release (it is relaxed):",
        "   write:  atomic_store_explicit(&ready, 1, memory_order_release);",
        "2. make the load at c11_mp_relaxed.c:19 acquire (it is relaxed):",
        "   write:  if (atomic_load_explicit(&ready, memory_order_acquire))",
        "verified: passes under C11 (RC11, history-bound 32) with these 2 changes; each is needed at its order",
    ] {
        assert!(out.stdout.contains(shown), "{shown} not in\n{}", out.stdout);
    }
}

#[test]
fn c11_suggestions_name_the_calls_of_cxx_std_atomic() {
    let (code, json) = c11_suggestion("c11_mp_relaxed.cpp");
    assert_eq!(code, 1, "{json}");
    let s = &json["fence_suggestion"];
    assert_eq!(s["result"], "verified", "{s}");
    let (orders, fences) = suggested(&json);
    assert_eq!(
        orders,
        vec![(12, "release".to_owned()), (15, "acquire".to_owned())],
        "{s}"
    );
    assert_eq!(s["orders"][0]["from"], "relaxed", "{s}");
    assert_eq!(
        s["orders"][1]["rewritten"],
        "if (ready.load(std::memory_order_acquire))"
    );
    let fixed = fixed_by_hand(
        &check_fixture("c11_mp_relaxed.cpp"),
        "c11-mp-cxx-fixed",
        &orders,
        &fences,
    );
    assert_eq!(c11_verdict(&fixed), 0);
}

#[test]
fn c11_accesses_missing_from_the_counterexample_are_found_in_the_program() {
    // The race is reported before the reader's loop on the flag is in the trace.
    let source = corpus("races/relaxed_publish_racy.c");
    let (code, json) = c11_suggestion(source.to_str().expect("a UTF-8 path"));
    assert_eq!(code, 1, "{json}");
    assert_eq!(json["error"]["kind"], "data-race", "{json}");
    let s = &json["fence_suggestion"];
    assert_eq!(s["result"], "verified", "{s}");
    let (orders, fences) = suggested(&json);
    assert_eq!(
        orders,
        vec![(10, "release".to_owned()), (16, "acquire".to_owned())],
        "{s}"
    );
    let fixed = fixed_by_hand(&source, "c11-publish-fixed", &orders, &fences);
    assert_eq!(c11_verdict(&fixed), 0);
}
