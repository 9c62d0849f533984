//! TSO states rebuilt from the store are the states that were stored: for every state
//! a search reaches in TSO programs (delayed flushing and the reference machine), the
//! rebuilt state, store buffers included (`TsoState::decode`), serialises to the same
//! bytes and every transition leads from it where it leads from the original
//! (`tso_engine::explore::roundtrip::DecodeCheck`). And the one-worker search, which
//! holds ids, does not fill the store with states that grow with depth.

mod instrument_support;

use std::path::Path;
use std::sync::Arc;

use instrument_support::{compile_program, instrumented_program};
use tso_engine::{CheckOptions, DecodeCheck, StateObserver, SymmetryCheck, Verdict};
use tso_runtime::runtime::RuntimeOptions;

/// Programs whose buffers hold pointers, partial and overlapping stores, stack slots
/// that die, heap objects that are freed and reused, and RMWs.
const PROGRAMS: &[&str] = &[
    "tests/programs/tso/sb_assert.c",
    "tests/programs/tso/message_passing.c",
    "tests/programs/tso/chase_lev_deque.c",
    "tests/programs/tso/spinlock_xchg.c",
    "tests/programs/tso/dead_stack_slot.c",
    "tests/programs/tso/freed_heap_reuse.c",
    "tests/programs/tso/peterson_2rounds.c",
    "tests/programs/uninit/buffered_store_carries_undefined.c",
    "bench/programs/treiber4.c",
    "bench/programs/wsdeque3.c",
    "tests/programs/tso/symmetric_workers.c",
];

/// Explores `file` under TSO (buffers bounded at `sb_bound`, 0 = unbounded) with `opts`.
fn run_tso(
    file: &str,
    reference_machine: bool,
    sb_bound: u32,
    opts: &CheckOptions,
) -> tso_engine::CheckReport {
    let (program, natives) = instrumented_program(
        &compile_program(Path::new(file)),
        &RuntimeOptions {
            sb_bound,
            reference_machine,
            ..RuntimeOptions::default()
        },
    );
    tso_engine::check(&program, &natives, opts)
}

/// Explores `file` under TSO with `observer` checking every new state (at most 3000),
/// buffers bounded at 4; asserts that the search ran and that the observer found no
/// state whose check fails (failures of the observer start with `observer_failure`).
fn run_observed(
    file: &str,
    reference_machine: bool,
    observer: StateObserver,
    observer_failure: &str,
) {
    let mut opts = CheckOptions {
        observer: Some(observer),
        ..CheckOptions::default()
    };
    opts.limits.max_states = Some(3000);
    let report = run_tso(file, reference_machine, 4, &opts);
    if let Some(f) = &report.failure {
        assert!(
            !f.message.starts_with(observer_failure),
            "{file}: {}",
            f.message
        );
    }
    assert!(
        report.verdict != Verdict::Error,
        "{file}: {:?}",
        report.failure
    );
}

/// Explores `file` under TSO with every new state decoded and compared; returns the
/// number of states checked.
fn check_decoding(file: &str, reference_machine: bool) -> u64 {
    let check = Arc::new(DecodeCheck::new(false));
    run_observed(file, reference_machine, check.clone(), "state decoding");
    assert!(check.checked() >= 2, "{file}: {} states", check.checked());
    assert!(check.successors() >= check.checked(), "{file}");
    check.checked()
}

#[test]
fn rebuilt_tso_states_serialise_and_step_like_the_originals() {
    let total: u64 = PROGRAMS.iter().map(|f| check_decoding(f, false)).sum();
    assert!(total > 3000, "only {total} states checked");
}

#[test]
fn rebuilt_reference_machine_states_serialise_and_step_like_the_originals() {
    let total: u64 = PROGRAMS[..4].iter().map(|f| check_decoding(f, true)).sum();
    assert!(total > 500, "only {total} states checked");
}

/// Thread symmetry under TSO: every state's threads renamed (store buffers, their
/// owners and ordering facts included: `TsoState::permute_threads`) step like the
/// originals, renamed; and symmetric workers take fewer states with it than without.
#[test]
fn renamed_tso_states_step_like_the_originals() {
    let mut renamed = 0;
    for reference_machine in [false, true] {
        for file in [
            "tests/programs/tso/symmetric_workers.c",
            "bench/programs/mcs4.c",
        ] {
            let check = Arc::new(SymmetryCheck::new(false));
            run_observed(file, reference_machine, check.clone(), "thread symmetry");
            renamed += check.permuted();
        }
    }
    assert!(renamed > 1000, "only {renamed} states renamed");
    let mut opts = CheckOptions::default();
    let with = run_tso("tests/programs/tso/symmetric_workers.c", false, 4, &opts);
    opts.machine.symmetry = false;
    let without = run_tso("tests/programs/tso/symmetric_workers.c", false, 4, &opts);
    assert_eq!(with.verdict, Verdict::Pass, "{:?}", with.failure);
    assert_eq!(without.verdict, Verdict::Pass, "{:?}", without.failure);
    assert!(
        with.stats.states < without.stats.states,
        "{} states with symmetry, {} without",
        with.stats.states,
        without.stats.states
    );
}

/// Unbounded store buffers that keep growing make every deeper state bigger and share
/// little with the others: the one-worker search must not fill the store with them by
/// going deep (it goes breadth-first instead, where states stay short).
#[test]
fn growing_buffers_do_not_fill_the_store_depth_first() {
    let mut opts = CheckOptions::default();
    opts.limits.max_states = Some(20_000);
    let report = run_tso("bench/programs/shared_counter.c", false, 0, &opts);
    assert_eq!(
        report.verdict,
        Verdict::Inconclusive,
        "{:?}",
        report.failure
    );
    let per_state = report.stats.stored_bytes / report.stats.states.max(1);
    assert!(per_state < 1024, "{per_state} stored bytes per state");
}
