//! Footprints leave nothing out: in every state a search reaches in corpus and
//! benchmark programs (under SC), two threads whose steps have independent footprints
//! reach the same states in either order, and neither changes how the other's
//! non-moving variants end (`explore::commute::CommuteCheck`), with and without
//! data-race tracking. The reductions (sleep sets, persistent sets, dynamic
//! partial-order reduction) take such steps as commuting.

mod engine_support;

use engine_support::*;
use std::sync::Arc;
use tso_engine::{CommuteCheck, RacePolicy};

/// Runs `CommuteCheck` over every state (up to 1500) of each of `files` compiled at
/// `opt`, with `races`; the number of independent pairs checked.
fn commuted(files: &[&str], opt: &str, races: RacePolicy) -> u64 {
    commuted_with(files, opt, races, false)
}

/// `commuted`, with the footprints dynamic partial-order reduction records when `dpor`
/// (thread creation, joins and ends name what they touch).
fn commuted_with(files: &[&str], opt: &str, races: RacePolicy, dpor: bool) -> u64 {
    let mut total = 0;
    for file in files {
        let check = Arc::new(CommuteCheck::new(false));
        let mut opts = options();
        opts.observer = Some(check.clone());
        opts.limits.max_states = Some(1500);
        opts.machine.races = races;
        opts.machine.dpor = dpor;
        check_observed(file, opt, &opts, "commuting steps");
        total += check.pairs();
    }
    total
}

#[test]
fn independent_steps_commute() {
    let pairs = commuted(STATE_SPACE_PROGRAMS, "-O1", RacePolicy::Allow);
    assert!(pairs > 1000, "only {pairs} independent pairs checked");
}

/// With race data, an access records itself in the histories, and a race marks its
/// bytes: the footprints must say so.
#[test]
fn independent_steps_commute_with_race_data() {
    let pairs = commuted(STATE_SPACE_PROGRAMS, "-O0", RacePolicy::Warn);
    let races = commuted(RACE_PROGRAMS, "-O0", RacePolicy::Warn);
    assert!(pairs > 1000, "only {pairs} independent pairs checked");
    assert!(
        races > 50,
        "only {races} independent pairs of race programs"
    );
}

/// Programs that end the process while threads run, cancel, and leave one thread
/// running alone.
const LIFECYCLE_PROGRAMS: &[&str] = &[
    "tests/programs/exit/exit_races.c",
    "tests/programs/exit/main_return_races.c",
    "tests/programs/exit/last_pthread_exit_races.c",
    "tests/programs/exit/underscore_exit_skips_atexit.c",
    "tests/programs/exit/atexit_handler_races.c",
    "tests/programs/cancel/join_cancelled_worker.c",
    "tests/programs/cancel/cancel_may_miss_testcancel.c",
    "tests/programs/cancel/cleanup_handler_runs_on_cancel.c",
];

/// The lifecycle footprints of dynamic partial-order reduction: a creation, a join, a
/// thread's end and the process's end name what they touch, so many more pairs are
/// independent; each must commute. (What a creation writes orders the new thread's
/// steps after it on a path, which no pair of one state shows: `engine_dpor` tests it.)
#[test]
fn independent_steps_commute_with_lifecycle_footprints() {
    let files: Vec<&str> = STATE_SPACE_PROGRAMS
        .iter()
        .chain(LIFECYCLE_PROGRAMS)
        .copied()
        .collect();
    let pairs = commuted_with(&files, "-O1", RacePolicy::Allow, true);
    let plain = commuted(&files, "-O1", RacePolicy::Allow);
    assert!(
        pairs > plain,
        "{pairs} independent pairs with them, {plain} without"
    );
}
