//! The C11 litmus suite (`tests/fixtures/c11_litmus.txt`): the view machine and the
//! RC11 reference must each reach exactly the outcomes written down.

mod c11_support;

use c11_support::litmus::{parse, render};
use c11_support::{operational, reference};
use std::collections::BTreeSet;

const SUITE: &str = include_str!("fixtures/c11_litmus.txt");

#[test]
fn litmus_outcomes_are_exactly_the_written_ones() {
    let tests = parse(SUITE).expect("the suite parses");
    let mut failures = Vec::new();
    for t in &tests {
        let (ops, _) = operational(&t.program, 0);
        let ops: BTreeSet<String> = ops.iter().map(render).collect();
        let rc11: BTreeSet<String> = reference::outcomes(&t.program).iter().map(render).collect();
        if std::env::var_os("C11_LITMUS_PRINT").is_some() {
            println!(
                "{}\noutcomes: {}",
                t.name,
                rc11.iter().cloned().collect::<Vec<_>>().join("; ")
            );
        }
        if ops != t.outcomes {
            failures.push(format!(
                "{}: view machine {ops:?}, written {:?}",
                t.name, t.outcomes
            ));
        }
        if rc11 != t.outcomes {
            failures.push(format!(
                "{}: RC11 reference {rc11:?}, written {:?}",
                t.name, t.outcomes
            ));
        }
        let (weak, allowed) = &t.weak;
        if t.outcomes.contains(weak) != *allowed {
            failures.push(format!(
                "{}: the weak outcome {weak:?} is said to be {}",
                t.name,
                if *allowed { "allowed" } else { "forbidden" }
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(tests.len() >= 28, "the suite lost tests: {}", tests.len());
}
