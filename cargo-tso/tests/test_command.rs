//! `cargo tso test` end to end on the fixture workspace (tests/fixtures/ws):
//! discovery, selection, formats, exit codes, compile errors, cache, limits, sweep,
//! SC/TSO classification.

mod common;

use common::{event, finished_events, json_lines, mask, run, sc, scratch, test};

#[test]
fn list_shows_every_test_of_the_workspace() {
    let out = run(test().args(["--workspace", "--list"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!("test_list_workspace", out.stdout);
}

#[test]
fn list_ignored_shows_only_ignored_tests() {
    let out = run(test().args(["--workspace", "--list", "--ignored"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "fixture-basic::counters::slow_one: test\n\n1 test, 0 benchmarks\n"
    );
}

#[test]
fn pretty_report_of_a_package_under_sc() {
    let out = run(test().args(["-p", "fixture-basic"]).args(sc()));
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    insta::assert_snapshot!("test_pretty_basic_sc", mask(&out.stdout));
}

#[test]
fn all_passing_exits_0() {
    let out = run(test().args(["-p", "fixture-litmus"]).args(sc()));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains(
            "test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out;"
        ),
        "{}",
        out.stdout
    );
}

#[test]
fn filters_exact_and_skip_select_tests() {
    let out = run(test().args(["-p", "fixture-basic", "lost_update", "--list"]));
    assert_eq!(out.stdout, "fixture-basic::counters::lost_update: test\nfixture-basic::counters::lost_update_expected: test\n\n2 tests, 0 benchmarks\n");
    let out = run(test().args([
        "-p",
        "fixture-basic",
        "--exact",
        "fixture-basic::counters::lost_update",
        "--list",
    ]));
    assert_eq!(
        out.stdout,
        "fixture-basic::counters::lost_update: test\n\n1 test, 0 benchmarks\n"
    );
    let out = run(test().args([
        "-p",
        "fixture-basic",
        "counters",
        "--skip",
        "lost",
        "--skip",
        "slow",
        "--list",
    ]));
    assert_eq!(
        out.stdout,
        "fixture-basic::counters::locked: test\nfixture-basic::counters::locked_expected_to_fail: test\nfixture-basic::counters::wrong_kind: test\n\n3 tests, 0 benchmarks\n"
    );
    // Running with a filter reports the rest as filtered out.
    let out = run(test()
        .args(["-p", "fixture-basic", "counters::locked"])
        .args(sc()));
    assert!(
        out.stdout
            .contains("test fixture-basic::counters::locked ... ok"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("1 passed; 1 failed; 0 ignored; 0 measured; 6 filtered out"),
        "{}",
        out.stdout
    );
}

#[test]
fn ignored_and_include_ignored() {
    let out = run(test().args(["-p", "fixture-basic", "--ignored"]).args(sc()));
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stdout
            .contains("test fixture-basic::counters::slow_one ... ok"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("1 passed; 0 failed; 0 ignored; 0 measured; 7 filtered out"),
        "{}",
        out.stdout
    );
    let out = run(test()
        .args(["-p", "fixture-basic", "counters::slow", "--include-ignored"])
        .args(sc()));
    assert!(
        out.stdout
            .contains("test fixture-basic::counters::slow_one ... ok"),
        "{}",
        out.stdout
    );
}

#[test]
fn json_format_is_libtest_events_with_checker_fields() {
    let out = run(test()
        .args(["-p", "fixture-basic", "--format", "json"])
        .args(sc()));
    assert_eq!(out.code, 101, "{}", out.stderr);
    let lines = json_lines(&out.stdout);
    assert_eq!(lines[0]["type"], "suite");
    assert_eq!(lines[0]["event"], "started");
    assert_eq!(lines[0]["test_count"], 8);
    let last = lines.last().expect("events");
    assert_eq!(last["type"], "suite");
    assert_eq!(last["event"], "failed");
    assert_eq!(last["passed"], 4);
    assert_eq!(last["failed"], 3);
    assert_eq!(last["ignored"], 1);
    let events = finished_events(&out.stdout);
    let locked = event(&events, "fixture-basic::counters::locked");
    assert_eq!(locked["event"], "ok");
    assert_eq!(locked["verdict"], "pass");
    assert!(locked["states"].as_u64().is_some_and(|s| s > 1));
    assert_eq!(locked["memory_model"], "sc");
    let lost = event(&events, "fixture-basic::counters::lost_update");
    assert_eq!(lost["event"], "failed");
    assert_eq!(lost["error"]["kind"], "assertion");
    assert_eq!(lost["error"]["location"], "basic/tso-tests/counters.c:38");
    assert!(lost["trace"].as_array().is_some_and(|t| !t.is_empty()));
    assert!(lost["stdout"]
        .as_str()
        .is_some_and(|s| s.contains("TSO_ASSERT(counter == 2)")));
    let expected = event(&events, "fixture-basic::counters::lost_update_expected");
    assert_eq!(expected["event"], "ok");
    assert_eq!(expected["expected_failure"], "assertion");
    let passed_unexpectedly = event(&events, "fixture-basic::counters::locked_expected_to_fail");
    assert_eq!(passed_unexpectedly["event"], "failed");
    assert!(passed_unexpectedly["stdout"]
        .as_str()
        .is_some_and(|s| s.contains("expected failure but passed")));
    let wrong = event(&events, "fixture-basic::counters::wrong_kind");
    assert!(wrong["stdout"]
        .as_str()
        .is_some_and(|s| s.contains("expected failure `deadlock`, but it is not reachable")));
    assert_eq!(
        event(&events, "fixture-basic::counters::slow_one")["event"],
        "ignored"
    );
    assert_eq!(event(&events, "fixture-basic::program")["event"], "ok");
}

#[test]
fn terse_format() {
    let out = run(test().args(["-p", "fixture-litmus", "-q"]).args(sc()));
    assert_eq!(out.code, 0);
    assert_eq!(mask(&out.stdout), "\nrunning 3 tests\n...\n\ntest result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in [TIME]s\n\n");
}

#[test]
fn compile_error_fails_that_file_with_diagnostics_and_others_run() {
    let out = run(test().args(["-p", "fixture-broken"]).args(sc()));
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("test fixture-broken::fine::still_runs ... ok"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("test fixture-broken::typo ... FAILED"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("typo.c:4:16: error: use of undeclared identifier 'undeclared_variable'"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("1 passed; 1 failed"), "{}", out.stdout);
}

#[test]
fn max_states_is_inconclusive_not_passed() {
    let out = run(test()
        .args([
            "-p",
            "fixture-basic",
            "three_workers",
            "--max-states",
            "100",
        ])
        .args(sc()));
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("test fixture-basic::grid::three_workers ... INCONCLUSIVE"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("inconclusive: --max-states 100 reached"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("0 passed; 1 failed"), "{}", out.stdout);
    let out = run(test()
        .args(["-p", "fixture-basic", "three_workers"])
        .args(sc()));
    assert_eq!(out.code, 0, "without the limit it passes: {}", out.stdout);
}

#[test]
fn second_run_recompiles_nothing() {
    let cache = scratch("cache-test");
    let _ = std::fs::remove_dir_all(&cache);
    let counts = || {
        let out = run(test()
            .env("CARGO_TSO_CACHE_DIR", &cache)
            .args([
                "-p",
                "fixture-litmus",
                "-p",
                "fixture-basic",
                "--format",
                "json",
            ])
            .args(sc()));
        let start = json_lines(&out.stdout)
            .into_iter()
            .next()
            .expect("suite started");
        (start["compiled"].as_u64(), start["cached"].as_u64())
    };
    assert_eq!(counts(), (Some(4), Some(0)));
    assert_eq!(counts(), (Some(0), Some(4)));
    let out = run(test().env("CARGO_TSO_CACHE_DIR", &cache).args([
        "-p",
        "fixture-litmus",
        "-v",
        "--list",
    ]));
    assert!(
        out.stderr
            .contains("Cached litmus/tso-tests/store_buffering.c"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("Compiled"), "{}", out.stderr);
}

#[test]
fn unknown_package_is_an_error() {
    let out = run(test().args(["-p", "no-such-package"]));
    assert_eq!(out.code, 101);
    assert!(out.stderr.contains("no-such-package"), "{}", out.stderr);
}

// Under x86-TSO (needs the store-buffer runtime).

#[test]
fn tso_failures_say_whether_they_need_tso() {
    let out = run(test().args(["-p", "fixture-litmus", "store_buffering::plain"]));
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("needs TSO: passes under sequential consistency"),
        "{}",
        out.stdout
    );
    let out = run(test().args([
        "-p",
        "fixture-basic",
        "--exact",
        "fixture-basic::counters::lost_update",
    ]));
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("fails under SC too"), "{}", out.stdout);
    let out = run(test().args(["-p", "fixture-litmus", "store_buffering::fenced"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
}

#[test]
fn bound_sweep_prints_a_table_per_test() {
    let out = run(test().args(["-p", "fixture-litmus", "--sb-bound", "1,2,0"]));
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    let text = mask(&out.stdout);
    insta::assert_snapshot!("test_sweep_litmus", text);
    for bound in ["1", "2", "unbounded"] {
        assert!(
            text.contains(&format!(
                "bound fixture-litmus::store_buffering::padded [sb={bound}] ... "
            )),
            "{text}"
        );
    }
    assert!(
        text.contains("sb-bound sweep: fixture-litmus::store_buffering::padded\n"),
        "{text}"
    );
    assert!(text.contains("  smallest failing bound: 2\n"), "{text}");
    assert!(
        text.contains("  no failure at any bound\n"),
        "the fenced test: {text}"
    );
    // One counterexample per test, at its smallest failing bound; the summary counts
    // tests, not bounds.
    assert!(
        text.contains("failures:\n    fixture-litmus::store_buffering::plain\n    fixture-litmus::store_buffering::padded\n"),
        "{text}"
    );
    assert_eq!(text.matches("trace:\n").count(), 2, "{text}");
    assert!(text.contains("1 passed; 2 failed;"), "{text}");
    let lines = json_lines(
        &run(test().args([
            "-p",
            "fixture-litmus",
            "--sb-bound",
            "1,2,0",
            "--format",
            "json",
        ]))
        .stdout,
    );
    let sweep = |name: &str| {
        lines
            .iter()
            .find(|l| l["type"] == "sweep" && l["name"] == name)
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(
        sweep("fixture-litmus::store_buffering::plain")["smallest_failing_bound"],
        1
    );
    assert_eq!(
        sweep("fixture-litmus::store_buffering::padded")["smallest_failing_bound"],
        2
    );
    assert!(sweep("fixture-litmus::store_buffering::fenced")["smallest_failing_bound"].is_null());
}

/// `cargo-tso tso test -p fixture-litmus` under SC on a pseudo-terminal (util-linux
/// `script`), its stdout discarded: what is left is what it draws on stderr.
fn on_a_terminal(ci: bool) -> String {
    let command = format!(
        "'{}' tso test -p fixture-litmus --memory-model sc --test-threads 1 >/dev/null",
        env!("CARGO_BIN_EXE_cargo-tso")
    );
    let mut script = std::process::Command::new("script");
    script
        .args(["-qec", &command, "/dev/null"])
        .current_dir(common::fixtures().join("ws"))
        .env("CARGO_TSO_CACHE_DIR", scratch("cache"))
        .env("CARGO_TARGET_DIR", scratch("fixture-target"))
        .env("NO_COLOR", "1")
        .env_remove("CI");
    if ci {
        script.env("CI", "1");
    }
    let out = run(&mut script);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    out.stdout
}

#[test]
fn progress_is_drawn_only_on_a_terminal_outside_ci() {
    let drawn = on_a_terminal(false);
    assert!(
        drawn.contains("0/3 running: fixture-litmus::"),
        "no progress display on a terminal: {drawn:?}"
    );
    let in_ci = on_a_terminal(true);
    assert!(!in_ci.contains("running:"), "progress in CI: {in_ci:?}");
    // Piped (not a terminal), CI unset: only the report.
    let out = run(test()
        .env_remove("CI")
        .args(["-p", "fixture-litmus"])
        .args(sc()));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    for text in [&out.stdout, &out.stderr] {
        assert!(
            !text.contains("running:") && !text.contains("states/s"),
            "progress text in non-terminal output: {text:?}"
        );
    }
}

/// Determinism: the number of worker threads changes the order tests finish
/// in, never a test's verdict, error, state count or counterexample.
#[test]
fn results_do_not_depend_on_test_threads() {
    let by_name = |threads: &str| {
        let mut cmd = common::cargo_tso();
        cmd.current_dir(common::fixtures().join("ws")).args([
            "tso",
            "test",
            "--workspace",
            "--format",
            "json",
            "--test-threads",
            threads,
        ]);
        let out = run(&mut cmd);
        let mut events: Vec<(String, String)> = finished_events(&out.stdout)
            .into_iter()
            .map(|e| {
                let name = e["name"].as_str().unwrap_or_default().to_owned();
                let facts = serde_json::json!({
                    "event": e["event"], "error": e["error"], "states": e["states"],
                    "transitions": e["transitions"], "trace": e["trace"], "sc": e["sc_rerun"]["states"],
                });
                (name, facts.to_string())
            })
            .collect();
        events.sort();
        events
    };
    let one = by_name("1");
    assert!(one.len() >= 10, "too few tests ran: {one:?}");
    assert_eq!(one, by_name("4"));
    assert_eq!(one, by_name("2"));
}

/// Isolation: an internal error while checking one test fails that test with
/// "internal error" and a message for a bug report; every other test still runs.
#[test]
fn an_internal_error_fails_only_its_own_test() {
    let victim = "fixture-litmus::store_buffering::fenced";
    let out = run(test()
        .args(["-p", "fixture-litmus", "--format", "json"])
        .args(sc())
        .env("CARGO_TSO_INJECT_INTERNAL_ERROR", victim));
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    let events = finished_events(&out.stdout);
    assert_eq!(events.len(), 3, "every test reports: {events:?}");
    let failed = event(&events, victim);
    assert_eq!(failed["event"], "failed");
    assert!(failed.to_string().contains("internal error"), "{failed}");
    for other in events.iter().filter(|e| e["name"] != victim) {
        assert_eq!(other["event"], "ok", "{other}");
    }
}

/// The bundled examples' counterexamples read like their source: fields by name
/// (Peterson's `lock.interested[1]` and `lock.turn`, not `lock+4`), no step at a
/// library header, no mangled name, no loads of thread handles.
#[test]
fn example_traces_are_written_in_the_users_terms() {
    let out = run(common::examples_test().args(["--format", "json"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let events = finished_events(&out.stdout);
    let mut steps = Vec::new();
    for e in &events {
        for s in e["trace"].as_array().into_iter().flatten() {
            steps.push((
                s["location"].as_str().unwrap_or("-").to_owned(),
                s["action"].as_str().unwrap_or("").to_owned(),
            ));
        }
    }
    let actions: Vec<&str> = steps.iter().map(|(_, a)| a.as_str()).collect();
    assert!(actions.contains(&"load lock.interested[1]"), "{actions:?}");
    assert!(actions.contains(&"store lock.turn := 1"), "{actions:?}");
    for (location, action) in &steps {
        assert!(
            !location.starts_with("/usr/") && !location.contains("/include/c++/"),
            "{location} {action}"
        );
        assert!(!action.contains("_Z"), "{location} {action}");
        assert!(!action.contains("lock+"), "{location} {action}");
        assert!(!action.contains("local#"), "{location} {action}");
    }
}

/// `cargo tso test` with one test thread in the fixture workspace `dir`.
fn test_in(dir: &str) -> std::process::Command {
    let mut cmd = common::cargo_tso();
    cmd.current_dir(common::fixtures().join(dir))
        .args(["tso", "test", "--test-threads", "1"]);
    cmd
}

/// `cargo tso test` in the races fixture workspace, whose build script says
/// `Tests::races(Races::Deny)`.
fn races_ws() -> std::process::Command {
    test_in("races-ws")
}

#[test]
fn a_build_script_can_make_races_fail_and_the_command_line_wins() {
    let out = run(&mut races_ws());
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    for line in [
        "test fixture-races::counters::locked ... ok",
        "test fixture-races::counters::racy ... FAILED",
        "test fixture-races::counters::racy_expected ... ok",
        "error[data-race]: data race on `counter`: thread 1 writes (not atomic) at counters.c:9, \
         and thread 2 reads (not atomic) at counters.c:15",
    ] {
        assert!(out.stdout.contains(line), "{line}\n{}", out.stdout);
    }
    // `--races warn` on the command line: the race is reported beside the verdict, the
    // racy test passes, and the test that expects a race no longer fails.
    let out = run(races_ws().args(["--races", "warn"]));
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    for line in [
        "test fixture-races::counters::racy ... ok",
        "test fixture-races::counters::racy_expected ... FAILED",
        "data races:\n\n---- fixture-races::counters::racy ----\nwarning: data race on `counter`",
    ] {
        assert!(out.stdout.contains(line), "{line}\n{}", out.stdout);
    }
    assert!(!out
        .stdout
        .contains("---- fixture-races::counters::locked ----"));
    // `--races allow`: not looked for at all.
    let out = run(races_ws().args(["--races", "allow", "--skip", "racy_expected"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(!out.stdout.contains("data race"), "{}", out.stdout);
}

/// `cargo tso test` in the limits fixture workspace (`Tests::races(Races::Deny)`).
fn limits_ws() -> std::process::Command {
    test_in("limits-ws")
}

/// A limit that stops the race search (without store buffers) after the TSO search
/// passed makes the test inconclusive, naming the races, under the build script's
/// `Races::Deny` and under `--races warn` (it was "ok" before).
#[test]
fn a_limit_on_the_race_search_makes_the_test_inconclusive() {
    // The history-based race search (`--no-race-screen`): the race screen, which needs
    // no access histories, settles this program within the limit; so does the
    // join-array rule (`--no-join-symmetry`).
    let limit = [
        "locked_stress",
        "--max-states",
        "2000",
        "--no-race-screen",
        "--no-join-symmetry",
    ];
    // The premise: the TSO search alone finishes within the limit.
    let out = run(limits_ws().args(limit).args(["--races", "allow"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    for races in [&[][..], &["--races", "warn"][..]] {
        let out = run(limits_ws().args(limit).args(races));
        assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
        for line in [
            "test fixture-limits::stress::locked_stress ... INCONCLUSIVE",
            "inconclusive: --max-states 2000 reached",
            "not established: data races (a limit stopped the race search without store buffers)",
        ] {
            assert!(out.stdout.contains(line), "{line}\n{}", out.stdout);
        }
        let out = run(limits_ws()
            .args(limit)
            .args(races)
            .args(["--format", "json"]));
        let event = out
            .stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .find(|e| e["event"] == "failed")
            .unwrap_or_else(|| panic!("no failed event:\n{}", out.stdout));
        assert_eq!(
            event["not_established"],
            serde_json::json!(["races"]),
            "{event}"
        );
        assert_eq!(event["judgement"]["status"], "inconclusive", "{event}");
    }
}

/// The test event of `name` in a `--format json` stream.
fn test_event(stdout: &str, name: &str) -> serde_json::Value {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|e| e["type"] == "test" && e["event"] != "started" && e["name"] == name)
        .unwrap_or_else(|| panic!("no event for {name}:\n{stdout}"))
}

/// A real data race that only a late part of the search reaches, in a crate whose build
/// script denies races: a limit that stops the search before it makes the test
/// inconclusive, naming races as not established; without the limit the test fails
/// with `data-race`.
#[test]
fn a_race_beyond_the_limit_makes_the_test_inconclusive() {
    let name = "fixture-limits::late_race::race_beyond_the_limit";
    let limit = ["race_beyond_the_limit", "--max-states", "2000"];
    let out = run(limits_ws().args(limit));
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains(&format!("test {name} ... INCONCLUSIVE")),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("data races"), "{}", out.stdout);
    let out = run(limits_ws().args(limit).args(["--format", "json"]));
    let event = test_event(&out.stdout, name);
    assert_eq!(event["judgement"]["status"], "inconclusive", "{event}");
    assert!(
        event["not_established"]
            .as_array()
            .is_some_and(|p| p.contains(&serde_json::json!("races"))),
        "{event}"
    );
    let out = run(limits_ws().args(["race_beyond_the_limit", "--format", "json"]));
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    let event = test_event(&out.stdout, name);
    assert_eq!(event["error"]["kind"], "data-race", "{event}");
    assert!(event["states"].as_u64() > Some(2000), "{event}");
}

/// `-v` lists, under each test, the C library functions without a model that it could
/// call, and JSON has them in the optional `unmodelled` field; a call no run reaches
/// does not change the verdict.
#[test]
fn verbose_and_json_list_the_unmodelled_functions_of_each_test() {
    let name = "fixture-limits::unmodelled::unreached_sscanf";
    let out = run(limits_ws().args(["-v", "unreached_sscanf"]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let listing = "    library functions without a model (unsupported where a run reaches one):\n      __isoc99_sscanf (called at ";
    assert!(out.stdout.contains(listing), "{}", out.stdout);
    let quiet = run(limits_ws().args(["unreached_sscanf"]));
    assert_eq!(quiet.code, 0, "{}{}", quiet.stdout, quiet.stderr);
    assert!(
        !quiet.stdout.contains("without a model"),
        "{}",
        quiet.stdout
    );
    let out = run(limits_ws().args(["unreached_sscanf", "--format", "json"]));
    let event = test_event(&out.stdout, name);
    let listed = event["unmodelled"].to_string();
    assert!(
        listed.contains("__isoc99_sscanf (called at ") && listed.contains("unmodelled.c:11"),
        "{event}"
    );
    // Absent for a test that calls none.
    let out = run(limits_ws().args(["locked_stress", "--races", "allow", "--format", "json"]));
    let event = test_event(&out.stdout, "fixture-limits::stress::locked_stress");
    assert!(event.get("unmodelled").is_none(), "{event}");
}

/// `TSO_TEST_SHOULD_FAIL_WITH(kind)` searches on past errors of other kinds, each of
/// which ends its path: it passes when the kind is reachable (found after a shorter
/// use-after-free), and fails saying it is unreachable otherwise, with the kinds met.
#[test]
fn should_fail_with_a_kind_searches_past_other_kinds() {
    let out = run(limits_ws().args(["kinds", "--races", "warn"]));
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    for line in [
        "test fixture-limits::kinds::double_free_past_use_after_free ... ok",
        "also met on the way (each ends its path): `use-after-free`",
        "test fixture-limits::kinds::double_free_unreachable ... FAILED",
        "test fixture-limits::kinds::double_free_only_after_use_after_free ... FAILED",
        "---- fixture-limits::kinds::double_free_unreachable ----\n\
         expected failure `double-free`, but it is not reachable: the search went on past \
         the errors of other kinds it met, each of which ends its path, and found none; it \
         met `use-after-free`. The shortest of them:\n\
         error[use-after-free]",
    ] {
        assert!(out.stdout.contains(line), "{line}\n{}", out.stdout);
    }
    let out = run(limits_ws().args(["kinds", "--races", "warn", "--format", "json"]));
    let events: Vec<serde_json::Value> = out
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|e: &serde_json::Value| e["type"] == "test" && e["event"] != "started")
        .collect();
    let judged: Vec<(String, String, serde_json::Value)> = events
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap_or_default().to_owned(),
                e["judgement"]["finding"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                e["judgement"]["other_kinds"].clone(),
            )
        })
        .collect();
    let met = serde_json::json!(["use-after-free"]);
    assert_eq!(
        judged,
        [
            (
                "fixture-limits::kinds::double_free_past_use_after_free".to_owned(),
                "failed-as-expected".to_owned(),
                met.clone()
            ),
            (
                "fixture-limits::kinds::double_free_unreachable".to_owned(),
                "wrong-kind".to_owned(),
                met.clone()
            ),
            (
                "fixture-limits::kinds::double_free_only_after_use_after_free".to_owned(),
                "wrong-kind".to_owned(),
                met
            ),
        ]
    );
}

/// `cargo tso test --memory-model c11` on the bundled examples: the Peterson lock
/// that x86 keeps correct with one fence fails under C11 (its `turn` is a relaxed
/// store: two threads may both enter, as GenMC's RC11 mode also finds); the TSO-only
/// failure it declares fails too (C11 allows every x86 behaviour); the ring buffer and
/// the seqlock, written with release and acquire, pass.
#[test]
fn the_examples_under_c11() {
    let out = run(common::examples_test().args(["--format", "json", "--memory-model", "c11"]));
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    let events = finished_events(&out.stdout);
    let fenced = event(
        &events,
        "peterson-lock::mutual_exclusion::fenced_lock_excludes",
    );
    assert_eq!(fenced["event"], "failed", "{fenced}");
    assert_eq!(fenced["error"]["kind"], "assertion", "{fenced}");
    assert_eq!(fenced["memory_model"], "c11", "{fenced}");
    for other in events
        .iter()
        .filter(|e| e["name"] != "peterson-lock::mutual_exclusion::fenced_lock_excludes")
    {
        assert_eq!(other["event"], "ok", "{other}");
    }
    assert_eq!(events.len(), 5, "{events:?}");
}

/// The c11 fixture workspace: `tso-tests/` declares x86-TSO and C11, `single/` C11
/// alone, `undeclared/` nothing.
fn c11_ws() -> std::process::Command {
    test_in("c11-ws")
}

#[test]
fn a_test_runs_under_each_memory_model_its_build_script_declares() {
    let junit = scratch("c11-junit").join("report.xml");
    let out = run(c11_ws().args(["--format", "json", "--junit"]).arg(&junit));
    assert_eq!(out.code, 101, "{}{}", out.stdout, out.stderr);
    let events = finished_events(&out.stdout);
    let names: Vec<&str> = events.iter().filter_map(|e| e["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "fixture-c11::handoff::relaxed_handoff [tso]",
            "fixture-c11::handoff::relaxed_handoff [c11]",
            "fixture-c11::handoff::acquire_release_handoff [tso]",
            "fixture-c11::handoff::acquire_release_handoff [c11]",
            "fixture-c11::handoff::store_buffering [tso]",
            "fixture-c11::handoff::store_buffering [c11]",
            "fixture-c11::only_c11::relaxed_counter",
            "fixture-c11::plain::flag_is_set_after_join",
        ]
    );
    let judged = |name: &str| {
        let e = event(&events, name);
        (
            e["memory_model"].as_str().unwrap_or("?").to_owned(),
            e["event"].as_str().unwrap_or("?").to_owned(),
            e["judgement"]["finding"].as_str().unwrap_or("?").to_owned(),
        )
    };
    let row = |model: &str, event: &str, finding: &str| {
        (model.to_owned(), event.to_owned(), finding.to_owned())
    };
    // TSO_TEST_SHOULD_FAIL_UNDER_C11: passes under x86-TSO, and under C11 its failure,
    // which x86 does not have, is the expected one.
    assert_eq!(
        judged("fixture-c11::handoff::relaxed_handoff [tso]"),
        row("tso", "ok", "passed")
    );
    let c11 = event(&events, "fixture-c11::handoff::relaxed_handoff [c11]");
    assert_eq!(
        judged("fixture-c11::handoff::relaxed_handoff [c11]"),
        row("c11", "ok", "failed-as-expected")
    );
    assert_eq!(c11["judgement"]["expected"], "fail-under-c11", "{c11}");
    assert_eq!(c11["judgement"]["classification"], "needs-c11", "{c11}");
    assert_eq!(c11["x86_rerun"]["tso"]["verdict"], "pass", "{c11}");
    assert_eq!(c11["history_bound"], 32, "{c11}");
    // Fixed with release and acquire: the declared failure is gone.
    assert_eq!(
        judged("fixture-c11::handoff::acquire_release_handoff [c11]"),
        row("c11", "failed", "unexpected-pass")
    );
    // A failure x86 has too is not C11-only, and under x86-TSO it must pass.
    let sb = event(&events, "fixture-c11::handoff::store_buffering [c11]");
    assert_eq!(
        judged("fixture-c11::handoff::store_buffering [c11]"),
        row("c11", "failed", "fails-on-x86")
    );
    assert_eq!(sb["judgement"]["classification"], "needs-tso", "{sb}");
    assert_eq!(
        judged("fixture-c11::handoff::store_buffering [tso]"),
        row("tso", "failed", "unexpected-failure")
    );
    // One declared model: one run, named plainly; none: the command line's (tso).
    assert_eq!(
        judged("fixture-c11::only_c11::relaxed_counter"),
        row("c11", "ok", "passed")
    );
    assert_eq!(
        judged("fixture-c11::plain::flag_is_set_after_join"),
        row("tso", "ok", "passed")
    );
    // JUnit names each test case's model.
    let xml = std::fs::read_to_string(&junit).expect("the JUnit report");
    let case = |name: &str| {
        let start = xml
            .find(&format!("<testcase name=\"{name}\""))
            .unwrap_or_else(|| panic!("no test case {name} in {xml}"));
        let end = start + xml[start..].find("</testcase>").unwrap_or(0);
        xml[start..end].to_owned()
    };
    for (name, model) in [
        ("relaxed_handoff [c11]", "c11"),
        ("relaxed_handoff [tso]", "tso"),
        ("relaxed_counter", "c11"),
        ("flag_is_set_after_join", "tso"),
    ] {
        let case = case(name);
        assert!(
            case.contains(&format!(
                "<property name=\"memory_model\" value=\"{model}\"/>"
            )),
            "{case}"
        );
    }
    assert!(
        case("store_buffering [c11]").contains("fails on x86 too"),
        "{xml}"
    );
}

#[test]
fn memory_model_on_the_command_line_selects_the_runs_under_it() {
    let out = run(c11_ws().args(["--format", "json", "--memory-model", "c11"]));
    let events = finished_events(&out.stdout);
    let ran: Vec<(&str, &str)> = events
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap_or("?"),
                e["memory_model"].as_str().unwrap_or("?"),
            )
        })
        .collect();
    assert_eq!(
        ran,
        [
            ("fixture-c11::handoff::relaxed_handoff [c11]", "c11"),
            ("fixture-c11::handoff::acquire_release_handoff [c11]", "c11"),
            ("fixture-c11::handoff::store_buffering [c11]", "c11"),
            ("fixture-c11::only_c11::relaxed_counter", "c11"),
            ("fixture-c11::plain::flag_is_set_after_join", "c11"),
        ]
    );
    let suite = json_lines(&out.stdout)
        .into_iter()
        .find(|e| e["type"] == "suite" && e["event"] != "started")
        .expect("the suite's end");
    assert_eq!(suite["filtered_out"], 3, "{suite}");
    // Under SC the declared tests are all filtered out; the undeclared one runs.
    let out = run(c11_ws().args(sc()).arg("--list"));
    assert_eq!(
        out.stdout
            .lines()
            .filter(|l| l.ends_with(": test"))
            .collect::<Vec<_>>(),
        ["fixture-c11::plain::flag_is_set_after_join: test"],
        "{}",
        out.stdout
    );
    // A name filter picks one model's run.
    let out = run(c11_ws().args([
        "--format",
        "json",
        "--exact",
        "fixture-c11::handoff::relaxed_handoff [c11]",
    ]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(finished_events(&out.stdout).len(), 1);
}

/// `examples/mp-handoff`: the relaxed handoff passes under x86-TSO and fails under
/// C11 as declared (the failure needs C11 weakness); the release/acquire fix passes
/// under both.
#[test]
fn the_handoff_example_fails_only_under_c11() {
    let mut cmd = common::cargo_tso();
    cmd.current_dir(common::fixtures().join("../../../examples"))
        .args(["tso", "test", "-p", "mp-handoff", "--format", "json"]);
    let out = run(&mut cmd);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let events = finished_events(&out.stdout);
    assert_eq!(events.len(), 4, "{events:?}");
    for e in &events {
        assert_eq!(e["event"], "ok", "{e}");
        let name = e["name"].as_str().unwrap_or("?");
        let model = e["memory_model"].as_str().unwrap_or("?");
        assert!(
            name.ends_with(&format!(" [{model}]")),
            "{name} under {model}"
        );
        let failed = e["verdict"] == "fail";
        let relaxed_under_c11 = name.contains("relaxed::") && model == "c11";
        assert_eq!(failed, relaxed_under_c11, "{e}");
        if failed {
            assert_eq!(e["judgement"]["finding"], "failed-as-expected", "{e}");
            assert_eq!(e["judgement"]["classification"], "needs-c11", "{e}");
            // The receiver's stale read names the publisher's store it missed.
            let notes: Vec<&str> = e["trace"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|s| s["notes"].as_array().into_iter().flatten())
                .filter_map(|n| n.as_str())
                .collect();
            assert!(
                notes.contains(
                    &"→ 0 (stale: T0's view of box.message is older than T1's store at handoff.c:22)"
                ),
                "{notes:?}"
            );
        }
    }
}

/// `examples/mp-handoff` with `--suggest-fences`: the relaxed handoff's C11 failure gets
/// the fix its README shows, release on the flag's store and acquire on its load, in the
/// test's JSON event; the runs that pass get none.
#[test]
fn the_handoff_example_suggests_release_and_acquire_under_c11() {
    let mut cmd = common::cargo_tso();
    cmd.current_dir(common::fixtures().join("../../../examples"))
        .args(["tso", "test", "-p", "mp-handoff", "--suggest-fences"])
        .args(["--format", "json"]);
    let out = run(&mut cmd);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let events = finished_events(&out.stdout);
    assert_eq!(events.len(), 4, "{events:?}");
    for e in &events {
        let failed = e["verdict"] == "fail";
        assert_eq!(failed, e.get("fence_suggestion").is_some(), "{e}");
    }
    let failed = events
        .iter()
        .find(|e| e["verdict"] == "fail")
        .expect("the relaxed handoff fails under c11");
    let s = &failed["fence_suggestion"];
    assert_eq!(s["result"], "verified", "{s}");
    assert_eq!(s["fences"], serde_json::json!([]), "{s}");
    let orders: Vec<(&str, u64, &str)> = s["orders"]
        .as_array()
        .expect("orders")
        .iter()
        .map(|o| {
            (
                o["access"].as_str().unwrap_or("?"),
                o["line"].as_u64().unwrap_or(0),
                o["to"].as_str().unwrap_or("?"),
            )
        })
        .collect();
    assert_eq!(
        orders,
        [("store", 23, "release"), ("load", 27, "acquire")],
        "{s}"
    );
}
