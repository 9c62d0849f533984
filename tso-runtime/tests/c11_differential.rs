//! Differential test: the operational C11 model (`tso_runtime::c11`) must reach
//! exactly the outcomes of the axiomatic RC11 enumerator on generated programs.

mod c11_support;

use c11_support::{operational, random_program, random_shape, reference, Rng};

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The two must agree exactly, with seq_cst or without.
#[test]
fn view_machine_matches_rc11_on_random_programs() {
    let count = env_or("C11_PROGRAMS", 3000usize);
    let seed = env_or("C11_SEED", 0xC11_2017u64);
    let max_ops = env_or("C11_MAX_OPS", 6usize);
    let mut rng = Rng::new(seed);
    let mut failures = Vec::new();
    let mut without_sc = 0;
    for i in 0..count {
        let sc = i % 2 == 1;
        let program = if i % 4 < 2 {
            random_program(&mut rng, max_ops, sc)
        } else {
            random_shape(&mut rng, sc)
        };
        let (ops, _) = operational(&program, 0);
        let rc11 = reference::outcomes(&program);
        if !program.has_sc() {
            without_sc += 1;
        }
        let extra: Vec<String> = ops.difference(&rc11).map(|o| o.to_string()).collect();
        let missing: Vec<String> = rc11.difference(&ops).map(|o| o.to_string()).collect();
        if ops != rc11 {
            failures.push(format!(
                "program #{i}: {:?}\n  only view machine: {extra:?}\n  only RC11: {missing:?}",
                program.threads
            ));
        }
    }
    println!("{count} programs ({without_sc} without seq_cst)");
    assert!(
        failures.is_empty(),
        "{} of {count} programs differ (seed {seed}):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        without_sc >= count / 2 && without_sc <= count * 3 / 4,
        "too few programs with or without seq_cst: {without_sc} of {count} without"
    );
}

/// With a history bound the machine reaches a subset of the unbounded outcomes, and
/// all of them unless it says the bound was hit.
#[test]
fn a_history_bound_only_cuts_when_it_says_so() {
    let count = env_or("C11_PROGRAMS", 800usize) / 2;
    let mut rng = Rng::new(0xB0_0D);
    let (mut hit, mut exact) = (0, 0);
    for i in 0..count {
        let program = if i % 2 == 0 {
            random_program(&mut rng, 6, true)
        } else {
            random_shape(&mut rng, true)
        };
        let (all, unbounded_hit) = operational(&program, 0);
        assert!(!unbounded_hit, "no bound, no cut");
        for bound in [1, 2] {
            let (some, bound_hit) = operational(&program, bound);
            assert!(
                some.is_subset(&all),
                "program #{i}, bound {bound}: {:?}",
                program.threads
            );
            if bound_hit {
                hit += 1;
            } else {
                exact += 1;
                assert_eq!(
                    some, all,
                    "program #{i}, bound {bound} not hit: {:?}",
                    program.threads
                );
            }
        }
    }
    assert!(
        hit > 0 && exact > 0,
        "both cases are exercised: {hit} hit, {exact} exact"
    );
}

/// The outcomes of `program`, after checking that the machine's equal RC11's.
fn exact(program: &c11_support::Program) -> std::collections::BTreeSet<c11_support::Outcome> {
    let rc11 = reference::outcomes(program);
    assert_eq!(operational(program, 0).0, rc11, "{:?}", program.threads);
    rc11
}

/// T0's seq_cst store to y runs before T1's seq_cst increment of y only because T1
/// reads x from T0's later increment without synchronising. RC11 may order the
/// increment first in `psc`, and so may the machine: the SC order is not the run
/// order.
#[test]
fn a_relaxed_chain_does_not_order_seq_cst_events() {
    use c11_support::{Op, Outcome, Program};
    use tso_runtime::c11::Order::{AcqRel, Acquire, SeqCst};
    let program = Program {
        threads: vec![
            vec![
                Op::Store {
                    loc: 1,
                    value: 2,
                    order: SeqCst,
                },
                Op::FetchAdd {
                    loc: 0,
                    add: 1,
                    order: Acquire,
                },
                Op::Fence(AcqRel),
            ],
            vec![
                Op::Load {
                    loc: 0,
                    order: Acquire,
                },
                Op::FetchAdd {
                    loc: 1,
                    add: 1,
                    order: SeqCst,
                },
            ],
        ],
        locations: 2,
    };
    // T1 sees T0's increment of x, yet its increment of y comes before T0's store.
    let gap = Outcome {
        reads: vec![vec![0], vec![1, 0]],
        finals: vec![1, 2],
    };
    assert!(exact(&program).contains(&gap));
}

/// T1 reads T0's seq_cst store of x relaxed, then reads y=0 seq_cst, so T2's
/// increment of y runs after T1's read; T2's seq_cst load of x may still read 0:
/// RC11 orders T1's load, T2's increment, T2's load, then T0's store (the chain from
/// T0's store to T1 is relaxed, so not `psc`). A machine that took the run order of
/// seq_cst events for the SC order, even past relaxed chains through the reader
/// itself, missed this.
#[test]
fn sc_order_through_a_third_thread() {
    use c11_support::{Op, Outcome, Program};
    use tso_runtime::c11::Order::{Relaxed, SeqCst};
    let program = Program {
        threads: vec![
            vec![Op::Store {
                loc: 0,
                value: 2,
                order: SeqCst,
            }],
            vec![
                Op::Load {
                    loc: 0,
                    order: Relaxed,
                },
                Op::Load {
                    loc: 1,
                    order: SeqCst,
                },
            ],
            vec![
                Op::FetchAdd {
                    loc: 1,
                    add: 1,
                    order: SeqCst,
                },
                Op::Load {
                    loc: 0,
                    order: SeqCst,
                },
            ],
        ],
        locations: 2,
    };
    let gap = Outcome {
        reads: vec![vec![], vec![2, 0], vec![0, 0]],
        finals: vec![2, 1],
    };
    assert!(exact(&program).contains(&gap));
}

/// The SC order found so far must take in an edge that points back to an event
/// already placed. T1 reads T0's x=1 seq_cst (`hb|loc`: T0's store is before it);
/// T2's seq_cst load of x then reads 0, placing T2 (and its store of y) before T0's
/// store. T1's later seq_cst load of y may then not read 0: that closes the cycle
/// T2's store, T2's load, T0's store, T1's first load, T1's second load.
#[test]
fn a_psc_edge_to_an_older_event_orders_what_followed_it() {
    use c11_support::{Op, Outcome, Program};
    use tso_runtime::c11::Order::SeqCst;
    let load = |loc| Op::Load { loc, order: SeqCst };
    let store = |loc| Op::Store {
        loc,
        value: 1,
        order: SeqCst,
    };
    let program = Program {
        threads: vec![
            vec![store(0)],
            vec![load(0), load(1)],
            vec![store(1), load(0)],
        ],
        locations: 2,
    };
    let cycle = Outcome {
        reads: vec![vec![], vec![1, 0], vec![0]],
        finals: vec![1, 1],
    };
    let outcomes = exact(&program);
    assert!(!outcomes.contains(&cycle));
    // Each half of the cycle alone is allowed.
    assert!(outcomes.contains(&Outcome {
        reads: vec![vec![], vec![1, 1], vec![0]],
        finals: vec![1, 1],
    }));
    assert!(outcomes.contains(&Outcome {
        reads: vec![vec![], vec![1, 0], vec![1]],
        finals: vec![1, 1],
    }));
}

/// SB with relaxed accesses and seq_cst fences: the fences are `psc`-ordered through
/// `hb ; eco ; hb` only once the second read runs, after both fences have taken their
/// places, so the read must respect an order fixed earlier.
#[test]
fn seq_cst_fences_order_relaxed_store_buffering() {
    use c11_support::{Op, Outcome, Program};
    use tso_runtime::c11::Order::{Relaxed, SeqCst};
    let thread = |mine, theirs| {
        vec![
            Op::Store {
                loc: mine,
                value: 1,
                order: Relaxed,
            },
            Op::Fence(SeqCst),
            Op::Load {
                loc: theirs,
                order: Relaxed,
            },
        ]
    };
    let program = Program {
        threads: vec![thread(0, 1), thread(1, 0)],
        locations: 2,
    };
    let outcomes = exact(&program);
    assert!(!outcomes.contains(&Outcome {
        reads: vec![vec![0], vec![0]],
        finals: vec![1, 1],
    }));
    assert_eq!(outcomes.len(), 3);
}
