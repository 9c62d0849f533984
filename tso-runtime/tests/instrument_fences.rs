//! `InstrumentOptions::fences_after`: the pass inserts `__tso_fence()` right after the
//! stores at the named source positions, and nowhere else (how `--suggest-fences`
//! tries a placement without editing the user's file).

mod instrument_support;

use inkwell::context::Context;
use inkwell::values::InstructionOpcode;
use instrument_support::{calls_to, debug_line, function, instructions, load_fixture, next_call};
use tso_runtime::instrument::{instrument_module, InstrumentOptions, SourcePoint};

const FIXTURE: &str = "message_passing.c";

/// The position of the store at `line` in `writer`, read before instrumenting.
fn store_point(line: u32) -> SourcePoint {
    let ctx = Context::create();
    let module = load_fixture(&ctx, FIXTURE, "-O0");
    let store = instructions(function(&module, "writer"))
        .into_iter()
        .find(|i| i.get_opcode() == InstructionOpcode::Store && debug_line(*i) == Some(line))
        .expect("a store at that line");
    SourcePoint::of_instruction(store).expect("debug location")
}

/// For each `__tso_store_32` in `writer`: (its line, whether a fence follows it).
fn stores_and_fences(fences_after: Vec<SourcePoint>) -> (u64, Vec<(u32, bool)>) {
    let ctx = Context::create();
    let module = load_fixture(&ctx, FIXTURE, "-O0");
    let stats = instrument_module(
        &module,
        &InstrumentOptions {
            fences_after,
            ..InstrumentOptions::default()
        },
    )
    .expect("instrument");
    let stores = calls_to(function(&module, "writer"), "__tso_store_32")
        .into_iter()
        .map(|s| {
            (
                debug_line(s).unwrap_or(0),
                next_call(s).as_deref() == Some("__tso_fence"),
            )
        })
        .collect();
    (stats.placed_fences, stores)
}

#[test]
fn a_fence_follows_exactly_the_named_store() {
    let (placed, stores) = stores_and_fences(vec![store_point(9)]);
    assert_eq!(placed, 1);
    assert_eq!(stores, vec![(9, true), (10, false)]);
}

#[test]
fn without_points_or_with_a_point_matching_no_store_nothing_is_added() {
    let (placed, stores) = stores_and_fences(Vec::new());
    assert_eq!((placed, stores), (0, vec![(9, false), (10, false)]));
    let mut elsewhere = store_point(9);
    elsewhere.column += 100;
    let (placed, stores) = stores_and_fences(vec![elsewhere]);
    assert_eq!((placed, stores), (0, vec![(9, false), (10, false)]));
}
