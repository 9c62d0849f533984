//! Differential test: the delayed-flush buffers must reach exactly the final
//! outcomes of the conventional x86-TSO machine, for bounds 1, 2 and
//! unbounded, on random small programs; SC outcomes must be among them.

mod buffer_support;

use buffer_support::{
    check_program, random_program, random_program_of, Loc, Op, Program, Rng, WIDTHS_16,
};

const BOUNDS: [u32; 3] = [1, 2, 0];

fn programs_from_env(default: usize) -> usize {
    std::env::var("TSO_BUFFER_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn lazy_buffers_match_reference_machine_on_random_programs() {
    let count = programs_from_env(if cfg!(debug_assertions) { 200 } else { 2000 });
    let seed = std::env::var("TSO_BUFFER_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x7550_2024u64);
    let max_ops = std::env::var("TSO_BUFFER_MAX_OPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8usize);
    let mut rng = Rng::new(seed);
    let mut total = buffer_support::Stats::default();
    for i in 0..count {
        let program = random_program(&mut rng, max_ops);
        match check_program(&program, &BOUNDS) {
            Ok(stats) => {
                total.widest_choice = total.widest_choice.max(stats.widest_choice);
                total.reference_states += stats.reference_states;
                total.lazy_states += stats.lazy_states;
            }
            Err(report) => panic!("program #{i} (seed {seed}, max ops {max_ops}):\n{report}"),
        }
    }
    println!(
        "{count} programs agree for bounds {BOUNDS:?}; states visited: reference {}, delayed-flush {}; widest single choice: {}",
        total.reference_states, total.lazy_states, total.widest_choice
    );
}

/// The same with 16-byte locations among the others: a 16-byte compare-exchange
/// (`lock cmpxchg16b`) is a locked read-modify-write of the whole range, and narrower
/// stores into either half must interact with it as on the reference machine.
#[test]
fn lazy_buffers_match_reference_machine_with_16_byte_locations() {
    let count = programs_from_env(if cfg!(debug_assertions) { 100 } else { 1200 });
    let seed = 0x7550_2016u64;
    let mut rng = Rng::new(seed);
    let mut wide = 0;
    for i in 0..count {
        let program = random_program_of(&mut rng, 8, &WIDTHS_16);
        wide += usize::from(
            program
                .threads
                .iter()
                .flatten()
                .any(|op| matches!(op, Op::Cas { loc, .. } if loc.len == 16)),
        );
        if let Err(report) = check_program(&program, &BOUNDS) {
            panic!("program #{i} (seed {seed}):\n{report}");
        }
    }
    // Enough of them compare-exchange 16 bytes for the test to mean something.
    assert!(
        wide * 20 >= count,
        "{wide} of {count} programs have a 16-byte CAS"
    );
}

/// SB with a 16-byte compare-exchange that fails between each store and load: locked,
/// so it drains the buffer and both loads reading 0 is impossible, as under SC.
#[test]
fn store_buffering_with_16_byte_cas_between() {
    let x = loc(0, 4);
    let y = loc(8, 4);
    let whole = loc(0, 16);
    let fence = Op::Cas {
        loc: whole,
        expected: u128::MAX,
        desired: 7,
    };
    let program = Program {
        threads: vec![
            vec![
                Op::Store { loc: x, value: 1 },
                fence.clone(),
                Op::Load { loc: y },
            ],
            vec![Op::Store { loc: y, value: 1 }, fence, Op::Load { loc: x }],
        ],
    };
    check_program(&program, &BOUNDS).unwrap_or_else(|r| panic!("{r}"));
    let (tso, _) = buffer_support::outcomes(&program, buffer_support::Model::Lazy, 0);
    // Registers: each thread's CAS result, then its load.
    assert!(!tso
        .iter()
        .any(|(regs, _)| regs.len() == 4 && regs[1] == 0 && regs[3] == 0));
    assert!(!tso.is_empty());
}

fn loc(offset: u32, len: u32) -> Loc {
    Loc { offset, len }
}

/// Store buffering (SB): both loads may read 0 only under TSO.
#[test]
fn store_buffering_litmus() {
    let x = loc(0, 4);
    let y = loc(8, 4);
    let program = Program {
        threads: vec![
            vec![Op::Store { loc: x, value: 1 }, Op::Load { loc: y }],
            vec![Op::Store { loc: y, value: 1 }, Op::Load { loc: x }],
        ],
    };
    check_program(&program, &BOUNDS).unwrap_or_else(|r| panic!("{r}"));
    let (sc, _) = buffer_support::outcomes(&program, buffer_support::Model::Sc, 0);
    let (tso, _) = buffer_support::outcomes(&program, buffer_support::Model::Lazy, 0);
    let both_zero = |o: &(Vec<u128>, Vec<u8>)| o.0 == vec![0, 0];
    assert!(!sc.iter().any(both_zero));
    assert!(tso.iter().any(both_zero));
}

/// A flushed entry must not be ordered after a store that the earlier load
/// proved to be later (the paper's flushed flag alone would allow x = 1 at the end).
#[test]
fn flushed_entry_stays_before_later_committed_store() {
    let x = loc(0, 1);
    let y = loc(1, 1);
    let program = Program {
        threads: vec![
            vec![Op::Load { loc: y }, Op::Load { loc: x }],
            vec![
                Op::Store { loc: x, value: 1 },
                Op::Store { loc: y, value: 1 },
            ],
            vec![
                Op::Store { loc: y, value: 2 },
                Op::Store { loc: x, value: 2 },
            ],
        ],
    };
    check_program(&program, &BOUNDS).unwrap_or_else(|r| panic!("{r}"));
}

/// Regression (found by the random test): a load fully covered by the
/// thread's own entry must still let that entry reach memory first and be
/// overwritten by another thread before the load.
#[test]
fn own_covered_load_can_read_other_thread_after_own_flush() {
    let a = loc(7, 4);
    let b = loc(4, 4);
    let program = Program {
        threads: vec![
            vec![
                Op::Load { loc: a },
                Op::Cas {
                    loc: a,
                    expected: 0,
                    desired: 0x2423_2221,
                },
                Op::Load { loc: b },
                Op::Store {
                    loc: a,
                    value: 0x3433_3231,
                },
                Op::Load { loc: a },
                Op::Load { loc: b },
            ],
            vec![
                Op::Store {
                    loc: a,
                    value: 0x1413_1211,
                },
                Op::Store {
                    loc: a,
                    value: 0x4443_4241,
                },
            ],
        ],
    };
    check_program(&program, &BOUNDS).unwrap_or_else(|r| panic!("{r}"));
}

/// Regression (found by the random test): a load matching only the thread's
/// own *flushed* entry must still place it in memory before reading.
#[test]
fn own_flushed_entry_is_placed_before_own_load() {
    let x = loc(8, 1);
    let y = loc(4, 1);
    let program = Program {
        threads: vec![
            vec![
                Op::Store {
                    loc: x,
                    value: 0x11,
                },
                Op::Xchg {
                    loc: y,
                    value: 0x21,
                },
            ],
            vec![
                Op::Load { loc: x },
                Op::Store {
                    loc: y,
                    value: 0x31,
                },
                Op::Store {
                    loc: x,
                    value: 0x41,
                },
                Op::Load { loc: y },
            ],
            vec![Op::Load { loc: x }, Op::Load { loc: x }],
        ],
    };
    check_program(&program, &BOUNDS).unwrap_or_else(|r| panic!("{r}"));
}
