//! The litmus corpus: for every tests/litmus/NAME.c, the set of printed outcomes the
//! checker reaches (`--outcomes`) equals exactly the set NAME.expect marks allowed for
//! the model, under SC and under TSO unbounded (0) and with the default bound (32,
//! more than any test stores).
//!
//! NAME.expect describes unbounded buffers. With bounds 1 and 2 fewer outcomes are
//! legitimately reachable: the litmus registers are globals whose stores also occupy
//! the buffer (amd3 at bound 1: `x=1` must flush before `x=2` is buffered, which rules
//! out `r0=0 r1=0`). So for bounds 1 and 2 the reached set must lie between the SC set
//! and the TSO set, and grow with the bound: 1 ⊆ 2 ⊆ unbounded. Exact bounded outcome
//! sets are checked by differential_tso.rs against a bounded machine.
//!
//! Every run is made with one search worker and with two: both must pass with the same
//! outcome set and the same number of stored states.

use std::collections::{BTreeMap, BTreeSet};
use tso_suite::check::{self, CheckRun, Model};
use tso_suite::litmus::{self, LitmusTest};

/// A configuration to run each test under: model and bound (`None` = default).
type Config = (Model, Option<u32>);

fn config_name((model, bound): &Config) -> String {
    match bound {
        Some(b) => format!("{} --sb-bound {b}", model.as_str()),
        None => format!("{} (default bound)", model.as_str()),
    }
}

fn show(set: &BTreeSet<String>) -> String {
    set.iter()
        .map(|l| format!("{l:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn check_configs(configs: &[Config]) {
    let tests =
        litmus::read_dir(&tso_suite::suite_dir().join("litmus")).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        tests.len() >= 20,
        "the litmus corpus shrank to {} tests",
        tests.len()
    );
    let jobs: Vec<(&LitmusTest, Config)> = tests
        .iter()
        .flat_map(|t| configs.iter().map(move |c| (t, *c)))
        .collect();
    let runs = check::run_all_on_workers(
        &jobs,
        |_| true,
        |(test, (model, bound))| {
            let run = CheckRun::new(&test.source, *model).outcomes();
            match bound {
                Some(b) => run.sb_bound(*b),
                None => run,
            }
        },
    );
    let results = jobs.iter().zip(&runs).map(|((test, config), runs)| {
        let r = &runs.first;
        match (r.outcomes(), runs.difference()) {
            (Some(got), None) if r.passed() => Ok(got),
            (_, Some(d)) if r.passed() => {
                Err(format!("{} under {}: {d}", test.name, config_name(config)))
            }
            _ => Err(format!(
                "{} under {}: no outcome set: {r}",
                test.name,
                config_name(config)
            )),
        }
    });

    let mut problems = Vec::new();
    let mut observed: BTreeMap<(&str, Config), BTreeSet<String>> = BTreeMap::new();
    for ((test, config), result) in jobs.iter().zip(results) {
        let got = match result {
            Ok(got) => got,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        let want = test.allowed(config.0);
        let small_bound = matches!(config.1, Some(1 | 2));
        if small_bound {
            let sc = test.allowed(Model::Sc);
            if !(sc.is_subset(&got) && got.is_subset(&want)) {
                problems.push(format!(
                    "{} under {}: reached set not between SC and TSO\n    SC-allowed not reached: {}\n    reached but TSO-forbidden: {}",
                    test.name,
                    config_name(config),
                    show(&sc.difference(&got).cloned().collect()),
                    show(&got.difference(&want).cloned().collect())
                ));
            }
        } else if got != want {
            let missing: BTreeSet<_> = want.difference(&got).cloned().collect();
            let extra: BTreeSet<_> = got.difference(&want).cloned().collect();
            problems.push(format!(
                "{} under {}: outcome set differs\n    missing (allowed, not reached): {}\n    extra (reached, forbidden or unknown): {}",
                test.name,
                config_name(config),
                show(&missing),
                show(&extra)
            ));
        }
        observed.insert((test.name.as_str(), *config), got);
    }
    for ((name, config), sc) in observed.iter().filter(|((_, c), _)| c.0 == Model::Sc) {
        for ((_, tso_config), tso) in observed
            .range((*name, (Model::Tso, None))..)
            .take_while(|((n, _), _)| n == name)
        {
            if tso_config.0 == Model::Tso && !sc.is_subset(tso) {
                problems.push(format!(
                    "{name}: SC outcomes ({}) not all reached under {}: missing {}",
                    config_name(config),
                    config_name(tso_config),
                    show(&sc.difference(tso).cloned().collect())
                ));
            }
        }
    }
    for test in &tests {
        let at = |b: u32| observed.get(&(test.name.as_str(), (Model::Tso, Some(b))));
        if let (Some(one), Some(two), Some(unbounded)) = (at(1), at(2), at(0)) {
            if !(one.is_subset(two) && two.is_subset(unbounded)) {
                problems.push(format!(
                    "{}: TSO outcomes do not grow with the bound (1 ⊆ 2 ⊆ unbounded fails)",
                    test.name
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} litmus problem(s) in {} runs:\n\n{}",
        problems.len(),
        jobs.len(),
        problems.join("\n\n")
    );
}

#[test]
fn litmus_outcomes_under_sc() {
    check_configs(&[(Model::Sc, None)]);
}

/// SC and every TSO bound in one test, so the SC ⊆ TSO comparison sees both.
#[test]
fn litmus_outcomes_under_tso_and_sc_subset() {
    check_configs(&[
        (Model::Sc, None),
        (Model::Tso, Some(1)),
        (Model::Tso, Some(2)),
        (Model::Tso, Some(0)),
        (Model::Tso, None),
    ]);
}

/// The expectation files themselves are consistent: SC-allowed implies TSO-allowed,
/// each line is listed once, and every test has an outcome TSO forbids or SC forbids
/// (a test that allows everything could not catch a bug).
#[test]
fn litmus_expectations_are_well_formed() {
    let tests =
        litmus::read_dir(&tso_suite::suite_dir().join("litmus")).unwrap_or_else(|e| panic!("{e}"));
    let mut problems = Vec::new();
    for t in &tests {
        let lines: BTreeSet<&str> = t.outcomes.iter().map(|o| o.line.as_str()).collect();
        if lines.len() != t.outcomes.len() {
            problems.push(format!("{}: an outcome line is listed twice", t.name));
        }
        for o in &t.outcomes {
            if o.sc_allowed && !o.tso_allowed {
                problems.push(format!(
                    "{}: {:?} is SC-allowed but TSO-forbidden",
                    t.name, o.line
                ));
            }
        }
        if t.outcomes.iter().all(|o| o.sc_allowed && o.tso_allowed) {
            problems.push(format!(
                "{}: every outcome is allowed under both models",
                t.name
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
