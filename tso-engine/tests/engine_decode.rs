//! States rebuilt from the store are the states that were stored: for every state a
//! search reaches in corpus and benchmark programs (under SC), decoding its stored form
//! and serialising it again gives the same bytes, and every transition leads from the
//! rebuilt state where it leads from the original (`explore::roundtrip::DecodeCheck`),
//! with and without data-race tracking.

mod engine_support;

use engine_support::*;
use std::sync::Arc;
use tso_engine::{DecodeCheck, RacePolicy};

/// Runs `DecodeCheck` over every state (up to 3000) of each of `files` compiled at
/// `opt`, with `races`;
/// the number of states checked.
fn round_trip(files: &[&str], opt: &str, races: RacePolicy) -> u64 {
    let mut total = 0;
    for file in files {
        let check = Arc::new(DecodeCheck::new(false));
        let mut opts = options();
        opts.observer = Some(check.clone());
        opts.limits.max_states = Some(3000);
        opts.machine.races = races;
        check_observed(file, opt, &opts, "state decoding");
        // Every program has at least its initial state and one successor.
        assert!(
            check.checked() >= 2,
            "{file}: only {} states checked",
            check.checked()
        );
        assert!(check.successors() >= check.checked(), "{file}");
        total += check.checked();
    }
    total
}

#[test]
fn rebuilt_states_serialise_and_step_like_the_originals() {
    let total = round_trip(STATE_SPACE_PROGRAMS, "-O1", RacePolicy::Allow);
    assert!(total > 5000, "only {total} states checked");
}

/// With race tracking, the rebuilt race data serialises to the same bytes, and every
/// transition (each access checked for races, a race marking its bytes) leads to the
/// same successor.
#[test]
fn rebuilt_race_data_serialises_and_steps_like_the_original() {
    let total = round_trip(STATE_SPACE_PROGRAMS, "-O1", RacePolicy::Warn);
    let races = round_trip(RACE_PROGRAMS, "-O1", RacePolicy::Warn);
    assert!(total > 5000, "only {total} states checked");
    assert!(races > 100, "only {races} states of race programs checked");
}

/// At -O0 every local is a stack slot: a frame's slots come back in the frame's order,
/// so a rebuilt state numbers its successors' objects like the original.
#[test]
fn rebuilt_states_with_many_stack_slots_step_like_the_originals() {
    let total = round_trip(STATE_SPACE_PROGRAMS, "-O0", RacePolicy::Allow);
    let races = round_trip(RACE_PROGRAMS, "-O0", RacePolicy::Warn);
    assert!(total > 5000, "only {total} states checked");
    assert!(races > 100, "only {races} states of race programs checked");
}
