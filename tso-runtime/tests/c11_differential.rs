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

/// `sb|≠loc ; hb ; sb|≠loc`: T0's seq_cst store of x is followed by a release store
/// of y, which T1 acquires; T1's fence then separates that read of y from its
/// seq_cst load of y, so T0's store is `psc`-before the load. With T2's seq_cst store
/// of y after T1's load (`rb`) and T2's load of x=0 before T0's store, that is a cycle.
/// Neither store is `hb|loc`-before T1's load, and nothing else orders them.
#[test]
fn a_seq_cst_access_before_a_synchronising_chain_is_psc_before_its_end() {
    use c11_support::{Op, Outcome, Program};
    use tso_runtime::c11::Order::{Acquire, Relaxed, Release, SeqCst};
    let program = Program {
        threads: vec![
            vec![
                Op::Store {
                    loc: 0,
                    value: 1,
                    order: SeqCst,
                },
                Op::Store {
                    loc: 1,
                    value: 1,
                    order: Release,
                },
            ],
            vec![
                Op::Load {
                    loc: 1,
                    order: Acquire,
                },
                Op::Fence(Release),
                Op::Load {
                    loc: 1,
                    order: SeqCst,
                },
            ],
            vec![
                Op::Store {
                    loc: 1,
                    value: 2,
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
    let cycle = Outcome {
        reads: vec![vec![], vec![1, 1], vec![0]],
        finals: vec![1, 2],
    };
    let outcomes = exact(&program);
    assert!(!outcomes.contains(&cycle));
    // With a relaxed first store the chain orders nothing, and the outcome is allowed.
    let mut weaker = program.clone();
    weaker.threads[0][0] = Op::Store {
        loc: 0,
        value: 1,
        order: Relaxed,
    };
    assert!(exact(&weaker).contains(&cycle));
}

/// `psc_F` through `eco` into a read: T0's relaxed store of x=1, placed `mo`-before
/// T2's x=2, which T1 read before its fence, orders T0's fence before T1's; T1's
/// fence is before T0's through T1's stale read of y. The store runs last, after
/// both fences have their places, so it is refused only because a reader of a
/// later message happens before T1's fence.
#[test]
fn a_late_store_before_a_message_read_before_a_fence_orders_the_fences() {
    use c11_support::{Op, Outcome, Program};
    use tso_runtime::c11::Order::{Relaxed, SeqCst};
    let program = Program {
        threads: vec![
            vec![
                Op::Store {
                    loc: 1,
                    value: 1,
                    order: Relaxed,
                },
                Op::Fence(SeqCst),
                Op::Store {
                    loc: 0,
                    value: 1,
                    order: Relaxed,
                },
            ],
            vec![
                Op::Load {
                    loc: 0,
                    order: Relaxed,
                },
                Op::Fence(SeqCst),
                Op::Load {
                    loc: 1,
                    order: Relaxed,
                },
            ],
            vec![Op::Store {
                loc: 0,
                value: 2,
                order: Relaxed,
            }],
        ],
        locations: 2,
    };
    let cycle = Outcome {
        reads: vec![vec![], vec![2, 0], vec![]],
        finals: vec![2, 1],
    };
    let outcomes = exact(&program);
    assert!(!outcomes.contains(&cycle));
    // T0's store after T2's in `mo` breaks the cycle.
    assert!(outcomes.contains(&Outcome {
        reads: vec![vec![], vec![2, 0], vec![]],
        finals: vec![1, 1],
    }));
}

/// Collection must keep what a fence still to come learns from a message it drops.
/// T2's seq_cst load of x=0 is `rb`-before T0's release store x=1, which T1 acquires
/// before its seq_cst fence: so the load is `psc`-before the fence. Once every thread
/// has read T3's x=2, x=1 is collected before T1's fence runs; the fence must still
/// come after T2's load, so T1's later read of w=0 (before T2's store of w, which is
/// before T2's load) closes a cycle.
#[test]
fn a_fence_after_collection_still_follows_readers_of_collected_messages() {
    use c11_support::{Op, Outcome, Program};
    use tso_runtime::c11::Order::{Acquire, Relaxed, Release, SeqCst};
    let (x, w) = (0, 1);
    let load = |loc, order| Op::Load { loc, order };
    let program = Program {
        threads: vec![
            vec![
                Op::Store {
                    loc: x,
                    value: 1,
                    order: Release,
                },
                load(x, Relaxed),
            ],
            vec![
                load(x, Acquire),
                load(x, Relaxed),
                Op::Fence(SeqCst),
                load(w, Relaxed),
            ],
            vec![
                Op::Store {
                    loc: w,
                    value: 1,
                    order: SeqCst,
                },
                load(x, SeqCst),
                load(x, Relaxed),
            ],
            vec![Op::Store {
                loc: x,
                value: 2,
                order: Relaxed,
            }],
        ],
        locations: 2,
    };
    let cycle = Outcome {
        reads: vec![vec![2], vec![1, 2, 0], vec![0, 2], vec![]],
        finals: vec![2, 1],
    };
    let outcomes = exact(&program);
    assert!(!outcomes.contains(&cycle));
    // With T0's store relaxed it does not happen before the fence: no cycle.
    let mut weaker = program.clone();
    weaker.threads[0][0] = Op::Store {
        loc: x,
        value: 1,
        order: Relaxed,
    };
    assert!(exact(&weaker).contains(&cycle));
}
