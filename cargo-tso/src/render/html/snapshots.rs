//! Snapshot of the `--html` page for a fixed trace (Peterson's lock without its
//! fence under TSO), fed steps directly: no clang, no exploration.

use tso_engine::{ErrorKind, TraceStep};
use tso_runtime::instrument::SourcePoint;

use super::{page, Picture};
use crate::render::snapshots::{at, failing, step};
use crate::run_report::{RunReport, ScClassification, ScRerun};

fn report(trace: Vec<TraceStep>) -> RunReport {
    failing(
        ErrorKind::Assertion,
        "assertion `before == 0` failed in void *worker(void *)",
        at("peterson.c", 24),
        trace,
    )
}

/// Both threads buffer their interest, each reads the other's as 0 (the second read
/// is stale: T1's store is still in its buffer), then a locked add drains.
fn peterson_trace() -> Vec<TraceStep> {
    vec![
        step(
            0,
            "peterson.c",
            37,
            "pthread_create(&t0, 0, worker, 0)",
            &[],
        ),
        step(
            1,
            "peterson.c",
            10,
            "store lock.interested[0] := 1",
            &["T1 buffer: [lock.interested[0]=1 (peterson.c:10)]"],
        ),
        step(
            1,
            "peterson.c",
            11,
            "store lock.turn := 1",
            &["T1 buffer: [lock.interested[0]=1 (peterson.c:10), lock.turn=1 (peterson.c:11)]"],
        ),
        step(1, "peterson.c", 17, "load lock.interested[1]", &["→ 0"]),
        step(
            2,
            "peterson.c",
            10,
            "store lock.interested[1] := 1",
            &["T2 buffer: [lock.interested[1]=1 (peterson.c:10)]"],
        ),
        step(2, "peterson.c", 17, "load lock.interested[0]", &["→ 0"]),
        step(
            1,
            "peterson.c",
            23,
            "locked add inside 1",
            &[
                "flush: T2's lock.interested[1]=1 (peterson.c:10) now counts as written",
                "T1 buffer: []",
                "T2 buffer: [lock.interested[1]=1 (flushed)]",
            ],
        ),
        step(
            2,
            "peterson.c",
            23,
            "locked add inside 1",
            &["T2 buffer: []"],
        ),
    ]
}

#[test]
fn tso_counterexample_page() {
    let report = report(peterson_trace());
    let sc = ScRerun {
        classification: ScClassification::NeedsTso,
        outcome: report.clone(),
    };
    let fences = [SourcePoint {
        file: "/nonexistent/src/peterson.c".into(),
        line: 10,
        column: 5,
    }];
    let html = page(&Picture {
        title: "peterson-lock::mutual_exclusion::unfenced_lock_fails_under_tso",
        report: &report,
        classification: Some(sc.classification.sentence()),
        tso: true,
        fences: &fences,
        note: Some("fence suggestion (1 fence, found and minimised with 2 checks):\n"),
    });
    // Every step has its element in the picture and its line beside it, linked both ways.
    for i in 0..report.trace.len() {
        assert!(html.contains(&format!("<g id=\"step-{i}\"")), "step {i}");
        assert!(
            html.contains(&format!("id=\"line-{i}\" data-step=\"{i}\"")),
            "line {i}"
        );
        assert!(html.contains(&format!("href=\"#line-{i}\"")));
        assert!(html.contains(&format!("href=\"#step-{i}\"")));
    }
    // The stale read (step 5), the failing step (7), the fences after both stores at line 10.
    assert!(html.contains("<g id=\"step-5\" class=\"step load stale\">"));
    assert!(html.contains("id=\"stale-5\""));
    assert!(html.contains("<g id=\"step-7\" class=\"step failing\">"));
    assert!(html.contains("id=\"fence-1\"") && html.contains("id=\"fence-4\""));
    assert!(!html.contains("id=\"fence-2\""));
    // A buffer lane for each thread that buffers a store; main never does here.
    assert!(html.contains("id=\"lane-b1\"") && html.contains("id=\"lane-b2\""));
    assert!(!html.contains("id=\"lane-b0\""));
    // Self-contained: nothing is fetched.
    assert!(!html.contains("http:") && !html.contains("https:") && !html.contains(" src="));
    insta::assert_snapshot!(html);
}

/// Under SC there are no buffer or memory lanes, and nothing is stale.
#[test]
fn sc_counterexample_has_thread_lanes_only() {
    let trace = vec![
        step(1, "peterson.c", 17, "load lock.interested[1] → 0", &[]),
        step(2, "peterson.c", 17, "load lock.interested[0] → 0", &[]),
    ];
    let report = report(trace);
    let html = page(&Picture {
        title: "t",
        report: &report,
        classification: None,
        tso: false,
        fences: &[],
        note: None,
    });
    assert!(html.contains("id=\"lane-t1\"") && html.contains("id=\"lane-t2\""));
    assert!(!html.contains("lane-b1") && !html.contains("lane-memory"));
    assert!(!html.contains("load stale") && !html.contains("id=\"stale-"));
}
