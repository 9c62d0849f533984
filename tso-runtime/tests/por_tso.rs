//! Partial-order reduction under TSO: a buffered store and another thread's load of
//! the same object are dependent (the load's flush choices see the store), and so are
//! the operations that flush or mark other threads' entries. Checked on the litmus
//! tests, with delayed flushing and the reference machine: with and without the
//! reduction, the same verdict, states and outcomes. (The reference machine may flush
//! any buffer before any operation: its transitions touch everything, so it is only
//! checked on SB, where the reduction must not lose an outcome.) And in every state of
//! those tests and of programs with locks, queues and stacks, two threads whose
//! footprints are independent commute (`tso_engine::CommuteCheck`).

mod instrument_support;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use instrument_support::{compile_program, instrumented_program, workspace_root};
use tso_engine::{CheckOptions, CheckReport, CommuteCheck, Verdict};
use tso_runtime::runtime::RuntimeOptions;

fn run(bc: &Path, reference_machine: bool, sb_bound: u32, por: bool, jobs: usize) -> CheckReport {
    let (program, natives) = instrumented_program(
        bc,
        &RuntimeOptions {
            sb_bound,
            reference_machine,
            ..RuntimeOptions::default()
        },
    );
    let mut opts = CheckOptions {
        collect_outcomes: true,
        jobs,
        ..CheckOptions::default()
    };
    opts.machine.outputs_visible = true;
    opts.machine.por = por;
    // The reduction is off under thread symmetry (see `tso_engine::explore`).
    opts.machine.symmetry = false;
    tso_engine::check(&program, &natives, &opts)
}

fn litmus_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(workspace_root().join("tests/litmus"))
        .expect("litmus directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    files.sort();
    files
}

#[test]
fn litmus_outcomes_and_states_are_the_same_with_and_without_reduction() {
    let mut problems = Vec::new();
    let mut fewer = 0;
    for file in litmus_files() {
        let bc = compile_program(&file);
        for (reference, bound) in [(false, 32), (false, 1)] {
            let full = run(&bc, reference, bound, false, 1);
            for jobs in [1, 2] {
                let reduced = run(&bc, reference, bound, true, jobs);
                let what = format!(
                    "{} (reference machine: {reference}, bound {bound}, -j{jobs})",
                    file.display()
                );
                if reduced.verdict != full.verdict
                    || reduced.outcomes != full.outcomes
                    || reduced.stats.states != full.stats.states
                    || reduced.stats.transitions > full.stats.transitions
                {
                    problems.push(format!(
                        "{what}: with {:?} {} states {} transitions {:?}, without {:?} {} states {} transitions {:?}",
                        reduced.verdict,
                        reduced.stats.states,
                        reduced.stats.transitions,
                        reduced.outcomes,
                        full.verdict,
                        full.stats.states,
                        full.stats.transitions,
                        full.outcomes
                    ));
                }
                if reduced.stats.transitions < full.stats.transitions {
                    fewer += 1;
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(fewer > 0, "the reduction never saved a transition");
}

#[test]
fn store_buffering_keeps_its_relaxed_outcome() {
    // Each thread's store and the other's load of that variable are dependent: the
    // outcome where both loads read 0 (both stores still buffered) must stay.
    let bc = compile_program(Path::new("tests/litmus/sb.c"));
    for reference in [false, true] {
        let r = run(&bc, reference, 32, true, 1);
        for want in ["r0=0 r1=0\n", "r0=1 r1=1\n", "r0=0 r1=1\n", "r0=1 r1=0\n"] {
            assert!(
                r.outcomes.contains(want),
                "reference machine {reference}: {want:?} missing from {:?}",
                r.outcomes
            );
        }
    }
}

/// The buffers' footprints (`tso_runtime::runtime::footprint`) leave nothing out: in
/// every state (up to 1,500 per program) of the litmus tests and of programs whose
/// buffers hold pointers, partial stores, dying slots and RMWs, with bounds 32 and 1,
/// steps with independent footprints reach the same states in either order.
#[test]
fn independent_tso_steps_commute() {
    let mut files = litmus_files();
    for f in [
        "tests/programs/tso/chase_lev_deque.c",
        "tests/programs/tso/spinlock_xchg.c",
        "tests/programs/tso/dead_stack_slot.c",
        "tests/programs/tso/freed_heap_reuse.c",
        "tests/programs/tso/peterson_2rounds.c",
        "bench/programs/mcs4.c",
        "bench/programs/treiber3.c",
    ] {
        files.push(workspace_root().join(f));
    }
    let mut pairs = 0;
    for file in files {
        let bc = compile_program(&file);
        for bound in [32, 1] {
            let (program, natives) = instrumented_program(
                &bc,
                &RuntimeOptions {
                    sb_bound: bound,
                    ..RuntimeOptions::default()
                },
            );
            let check = Arc::new(CommuteCheck::new(false));
            let mut opts = CheckOptions {
                observer: Some(check.clone()),
                ..CheckOptions::default()
            };
            opts.limits.max_states = Some(1500);
            let report = tso_engine::check(&program, &natives, &opts);
            if let Some(f) = &report.failure {
                assert!(
                    !f.message.starts_with("commuting steps"),
                    "{} (bound {bound}): {}",
                    file.display(),
                    f.message
                );
            }
            assert!(report.verdict != Verdict::Error, "{:?}", report.failure);
            pairs += check.pairs();
        }
    }
    assert!(pairs > 5000, "only {pairs} independent pairs checked");
}
