//! Snapshot tests of the failure report and trace rendering, fed synthetic outcomes:
//! no clang, no exploration (nextest tests its reporter the same way).

use std::collections::BTreeSet;
use std::time::Duration;

use tso_engine::{ErrorKind, Location, TraceStep, Verdict};

use crate::render::{failure, json, trace};
use crate::run_report::{
    Cut, Figures, Phase, PhaseFigures, Property, RunError, RunReport, ScClassification, ScRerun,
    X86Classification, X86Rerun,
};
use crate::settings::CheckSettings;
use crate::settings::MemoryModel;

pub(super) fn at(file: &str, line: u32) -> Option<Location> {
    // A file that does not exist: the snippet is the arrow only.
    Some(Location::new(format!("/nonexistent/src/{file}"), line, 5))
}

pub(super) fn step(thread: u32, file: &str, line: u32, action: &str, notes: &[&str]) -> TraceStep {
    TraceStep {
        thread,
        location: at(file, line),
        action: action.to_owned(),
        notes: notes.iter().map(|n| n.to_string()).collect(),
        output: String::new(),
        detail: false,
    }
}

fn figures() -> Figures {
    Figures {
        states: 61,
        transitions: 97,
        time: Duration::from_millis(3),
        stored_bytes: 6_100,
        exploration_bytes: 150_000,
        peak_memory: 53 << 20,
        symmetry: None,
        awaits: None,
        phases: vec![PhaseFigures {
            phase: Phase::Search,
            time: Duration::from_millis(3),
            states: 61,
        }],
    }
}

pub(super) fn failing(
    kind: ErrorKind,
    message: &str,
    location: Option<Location>,
    trace: Vec<TraceStep>,
) -> RunReport {
    RunReport {
        verdict: Verdict::Fail,
        error: Some(RunError {
            kind,
            message: message.to_owned(),
            location,
        }),
        trace,
        inconclusive_reason: None,
        figures: figures(),
        output: String::new(),
        outcomes: BTreeSet::new(),
        diagnosis: Vec::new(),
        races: Vec::new(),
        unmodelled: Vec::new(),
        cut: None,
        other_kinds: Vec::new(),
        race_screen: None,
        race_search_placement: None,
    }
}

/// Thread 1 of Peterson's lock without its fence, under TSO.
fn tso_failure() -> RunReport {
    failing(
        ErrorKind::Assertion,
        "assertion `inside == 1` failed in void critical_section(void)",
        at("peterson.c", 18),
        vec![
            step(
                0,
                "peterson.c",
                40,
                "pthread_create(&main::t, 0, worker, 0)",
                &[],
            ),
            step(
                1,
                "peterson.c",
                27,
                "store flag[0] := 1",
                &["T1 buffer: [flag[0]=1 (peterson.c:27)]"],
            ),
            step(1, "peterson.c", 29, "load flag[1]", &["→ 0"]),
            step(
                2,
                "peterson.c",
                27,
                "store flag[1] := 1",
                &["T2 buffer: [flag[1]=1 (peterson.c:27)]"],
            ),
            step(
                2,
                "peterson.c",
                28,
                "store turn := 0",
                &["T2 buffer: [flag[1]=1 (peterson.c:27), turn=0 (peterson.c:28)]"],
            ),
            step(
                1,
                "peterson.c",
                17,
                "locked add in_cs 1",
                &[
                    "flush: T2's flag[1]=1 (peterson.c:27) now counts as written",
                    "flush: T2 writes turn=0 (peterson.c:28) to memory",
                    "T1 buffer: []",
                    "T2 buffer: [flag[1]=1 (flushed)]",
                ],
            ),
        ],
    )
}

fn sc(classification: ScClassification) -> ScRerun {
    ScRerun {
        classification,
        outcome: RunReport {
            verdict: Verdict::Pass,
            error: None,
            trace: Vec::new(),
            inconclusive_reason: None,
            figures: figures(),
            output: String::new(),
            outcomes: BTreeSet::new(),
            diagnosis: Vec::new(),
            races: Vec::new(),
            unmodelled: Vec::new(),
            cut: None,
            other_kinds: Vec::new(),
            race_screen: None,
            race_search_placement: None,
        },
    }
}

#[test]
fn sc_failure() {
    let mut printing = step(0, "counter.c", 21, "printf \"total 1\\n\"", &[]);
    printing.output = "total 1\n".into();
    let mut outcome = failing(
        ErrorKind::Assertion,
        "assertion `total == 2` failed in int main(void)",
        at("counter.c", 22),
        vec![
            step(1, "counter.c", 9, "load counter → 0", &[]),
            step(2, "counter.c", 9, "load counter → 0", &[]),
            step(1, "counter.c", 9, "store counter := 1", &[]),
            step(2, "counter.c", 9, "store counter := 1", &[]),
            step(0, "counter.c", 20, "tso_choose(2) → 1", &[]),
            printing,
        ],
    );
    outcome.output = "total 1\n".into();
    insta::assert_snapshot!(failure::details(&outcome, None, None, true));
}

#[test]
fn tso_failure_with_buffers_and_flushes() {
    insta::assert_snapshot!(failure::details(
        &tso_failure(),
        Some(&sc(ScClassification::NeedsTso)),
        None,
        false
    ));
}

#[test]
fn cxx_failure() {
    let outcome = failing(
        ErrorKind::Assertion,
        "assertion `popped[0] != popped[1]` failed in int main()",
        at("stack.cpp", 35),
        vec![
            step(0, "stack.cpp", 30, "std::thread::_M_start_thread(&main::a, &local#91, 0) [std::thread::thread<void (&)(int), int, void>]", &[]),
            step(1, "stack.cpp", 19, "load top [std::atomic<node*>::load]", &["→ &pool[2]"]),
            step(1, "stack.cpp", 21, "store top := &pool[1] [std::atomic<node*>::store]", &["T1 buffer: [top=&pool[1] (stack.cpp:21)]"]),
            step(2, "stack.cpp", 19, "load top [std::atomic<node*>::load]", &["→ &pool[2]"]),
            step(1, "stack.cpp", 21, "mfence [std::atomic<node*>::store]", &["T1 buffer: []"]),
            step(0, "stack.cpp", 32, "std::thread::join(&main::a)", &[]),
        ],
    );
    insta::assert_snapshot!(failure::details(
        &outcome,
        Some(&sc(ScClassification::FailsUnderSc)),
        None,
        false
    ));
}

/// A C11 failure's re-runs on x86: TSO with `tso`, SC (when TSO fails) with `sc`.
fn x86(tso: Verdict, sc: Option<Verdict>) -> X86Rerun {
    let run = |verdict| RunReport {
        verdict,
        ..sc_rerun_outcome()
    };
    X86Rerun::classify(run(tso), sc.map(run))
}

fn sc_rerun_outcome() -> RunReport {
    sc(ScClassification::NeedsTso).outcome
}

#[test]
fn c11_failure_that_passes_on_x86() {
    let outcome = failing(
        ErrorKind::Assertion,
        "assertion `data == 42` failed in void *consumer(void *)",
        at("handoff.c", 19),
        vec![
            step(1, "handoff.c", 12, "store data := 42", &[]),
            step(1, "handoff.c", 13, "store ready := 1", &[]),
            step(
                2,
                "handoff.c",
                18,
                "load ready",
                &["→ 1 (T1's store at handoff.c:13)"],
            ),
            step(
                2,
                "handoff.c",
                19,
                "load data",
                &["→ 0 (stale: T2's view of data is older than T1's store at handoff.c:12)"],
            ),
        ],
    );
    let needs_c11 = x86(Verdict::Pass, None);
    assert_eq!(needs_c11.classification, X86Classification::NeedsC11);
    insta::assert_snapshot!(failure::details(&outcome, None, Some(&needs_c11), false));
    // TSO fails: SC says whether the store buffers are what x86 needs for it.
    for (sc, classification) in [
        (Verdict::Pass, X86Classification::NeedsTso),
        (Verdict::Fail, X86Classification::FailsUnderSc),
        (Verdict::Inconclusive, X86Classification::Unknown),
    ] {
        let rerun = x86(Verdict::Fail, Some(sc));
        assert_eq!(rerun.classification, classification);
        let text = failure::details(&outcome, None, Some(&rerun), false);
        assert!(
            text.ends_with(&format!("{}\n", classification.sentence())),
            "{text}"
        );
    }
    let mut fields = json::outcome_fields(&outcome, &settings(MemoryModel::C11));
    fields.insert("x86_rerun".into(), json::x86_rerun(&needs_c11));
    let pretty =
        serde_json::to_string_pretty(&serde_json::Value::Object(fields)).unwrap_or_default();
    insta::assert_snapshot!(pretty);
}

/// The settings of a default run under `memory_model`.
fn settings(memory_model: MemoryModel) -> CheckSettings {
    CheckSettings {
        memory_model,
        sb_bound: 32,
        history_bound: 32,
        static_locals: true,
        dynamic_bypass: true,
        reference_machine: false,
        limits: Default::default(),
        machine: Default::default(),
        show_details: false,
        suggest_fences: false,
        jobs: 1,
        search_why: String::new(),
        races_explicit: false,
        test_memory: None,
        interrupt: None,
        cores: 1,
        race_search_order: crate::settings::RaceSearchOrder::Auto,
    }
}

#[test]
fn json_failure_event() {
    let settings = settings(MemoryModel::Tso);
    let mut fields = json::outcome_fields(&tso_failure(), &settings);
    fields.insert(
        "sc_rerun".into(),
        json::sc_rerun(&sc(ScClassification::NeedsTso)),
    );
    let pretty =
        serde_json::to_string_pretty(&serde_json::Value::Object(fields)).unwrap_or_default();
    insta::assert_snapshot!(pretty);
}

#[test]
fn inconclusive_run() {
    let outcome = RunReport {
        verdict: Verdict::Inconclusive,
        error: None,
        trace: Vec::new(),
        inconclusive_reason: Some("--max-states 10000 reached".into()),
        figures: figures(),
        output: String::new(),
        outcomes: BTreeSet::new(),
        diagnosis: tso_engine::Diagnosis {
            depth: 9_998,
            sampled: 9_998,
            growing: vec![tso_engine::Growing {
                name: "stats.full_hits".into(),
                declared: Some(("/src/ring.c".into(), 12)),
                distinct_values: 2_451_006,
                bounded: None,
            }],
        }
        .lines(9_999),
        races: Vec::new(),
        unmodelled: Vec::new(),
        cut: Some(Cut {
            phase: Phase::Search,
            not_established: vec![
                Property::Errors,
                Property::Definedness,
                Property::Hangs,
                Property::Races,
            ],
        }),
        other_kinds: Vec::new(),
        race_screen: None,
        race_search_placement: None,
    };
    insta::assert_snapshot!(failure::details(&outcome, None, None, false));
}

#[test]
fn details_are_left_out_unless_asked_for() {
    let mut outcome = tso_failure();
    let mut fence = step(1, "peterson.c", 40, "mfence (library call)", &[]);
    fence.detail = true;
    outcome.trace.insert(1, fence);
    let all = trace::render(&outcome.trace);
    assert!(all.contains("mfence (library call)"));
    outcome.hide_details();
    let shown = trace::render(&outcome.trace);
    assert!(!shown.contains("mfence"), "{shown}");
    assert_eq!(shown.lines().count(), all.lines().count() - 1);
}

#[test]
fn tests_are_called_by_their_own_name() {
    let mut outcome = failing(
        ErrorKind::Assertion,
        "assertion `x` failed in void __tso_test_should_fail__assertion__steal_races(void)",
        None,
        vec![step(
            0,
            "t.c",
            3,
            "__tso_test_should_fail__assertion__steal_races()",
            &["buffer T0: [__tso_test_should_fail__assertion__steal_races::q.count_=1]"],
        )],
    );
    outcome.diagnosis =
        vec!["`__tso_test_should_fail__assertion__steal_races::n` took 9 distinct values".into()];
    outcome.races = vec![tso_engine::RaceReport {
        location: "__tso_test_should_fail__assertion__steal_races::q.count_".into(),
        first: race_access(0, true),
        second: race_access(1, false),
    }];
    outcome.rename_symbol(
        "__tso_test_should_fail__assertion__steal_races",
        "steal_races",
    );
    let text = failure::details(&outcome, None, None, false);
    assert!(!text.contains("__tso_test"), "{text}");
    assert!(text.contains("failed in void steal_races(void)"), "{text}");
    assert!(text.contains("[steal_races::q.count_=1]"), "{text}");
    assert_eq!(
        outcome.diagnosis,
        ["`steal_races::n` took 9 distinct values"]
    );
    assert_eq!(outcome.races[0].location, "steal_races::q.count_");
}

fn race_access(thread: u32, write: bool) -> tso_engine::RaceAccess {
    tso_engine::RaceAccess {
        thread,
        write,
        atomic: false,
        dealloc: false,
        file: Some("/src/counter.c".into()),
        line: 3,
    }
}

#[test]
fn race_warnings_name_both_accesses() {
    use tso_engine::{RaceAccess, RaceReport};
    let access = |thread, write, atomic| RaceAccess {
        thread,
        write,
        atomic,
        dealloc: false,
        file: Some("/src/counter.c".into()),
        line: 3,
    };
    let mut outcome = tso_failure();
    outcome.races = vec![RaceReport {
        location: "stats.hits".into(),
        first: access(1, true, false),
        second: access(2, false, true),
    }];
    insta::assert_snapshot!(failure::races_block(&outcome));
    let settings = settings(MemoryModel::Sc);
    let fields = json::outcome_fields(&outcome, &settings);
    insta::assert_snapshot!(serde_json::to_string_pretty(&fields["races"]).unwrap_or_default());
}
