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

/// Without seq_cst the two must agree exactly. With seq_cst the view machine must
/// add no outcome; it still misses a few (a known gap, counted and listed with
/// `C11_SHOW_SC=1`): see `sc_order_through_a_third_thread` and the module doc of
/// `c11/mod.rs`.
#[test]
fn view_machine_matches_rc11_on_random_programs() {
    let count = env_or("C11_PROGRAMS", 3000usize);
    let seed = env_or("C11_SEED", 0xC11_2017u64);
    let max_ops = env_or("C11_MAX_OPS", 6usize);
    let mut rng = Rng::new(seed);
    let mut failures = Vec::new();
    let (mut without_sc, mut sc_stronger) = (0, 0);
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
        if !missing.is_empty() && program.has_sc() && extra.is_empty() {
            sc_stronger += 1;
            if std::env::var_os("C11_SHOW_SC").is_some() {
                println!(
                    "stronger #{i}: {:?}\n  only RC11: {missing:?}",
                    program.threads
                );
            }
        } else if ops != rc11 {
            failures.push(format!(
                "program #{i}: {:?}\n  only view machine: {extra:?}\n  only RC11: {missing:?}",
                program.threads
            ));
        }
    }
    println!(
        "{count} programs ({without_sc} without seq_cst); seq_cst programs where the view machine is stronger: {sc_stronger}"
    );
    assert!(
        failures.is_empty(),
        "{} of {count} programs differ (seed {seed}):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(without_sc >= count / 2, "too few programs without seq_cst");
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

/// T0's seq_cst store to y runs before T1's seq_cst increment of y only because T1
/// reads x from T0's later increment without synchronising. RC11 may order the
/// increment first in `psc`; the machine lets it, as T1's `porf` view knows the store
/// while its `cur` does not.
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
    assert!(reference::outcomes(&program).contains(&gap));
    assert!(operational(&program, 0).0.contains(&gap));
}

/// The gap left: T1 reads T0's seq_cst store of x relaxed, then reads y=0 seq_cst,
/// so T2's increment of y runs after T1's read; T2's seq_cst load of x then cannot
/// read 0 in the machine, though RC11 orders it before T0's store (the chain from
/// T0's store to T2 is relaxed, then `psc`). T2's `porf` does not know the store.
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
    assert!(reference::outcomes(&program).contains(&gap));
    // Flip to `contains` when the machine closes this gap.
    assert!(!operational(&program, 0).0.contains(&gap));
}
