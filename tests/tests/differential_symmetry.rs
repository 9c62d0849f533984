//! Thread symmetry changes how many states are stored, never an answer: every litmus
//! test, a sample of the random TSO programs (`gen_tso`) and of the verdict corpus run
//! with thread symmetry (the default) and with `--no-symmetry` must give the same
//! verdict and error kind, the same set of final outcomes where outcomes are collected,
//! and no more states. A failure's counterexample is replayed from the initial state
//! (the path of representatives turned back into the program's own threads); its error
//! location, where the replayed failing thread stopped, must be the one the run
//! without symmetry reports.
//!
//! Runs use the default `--races warn`, so race data is renamed with the threads
//! (`race/permute.rs`): the memory locations of the races reported must be the same
//! too (which pair of accesses a report quotes is the least the search met, and may
//! name the other of two interchangeable threads). The race oracle's generated
//! programs (`gen_race`, more threads with race data) run the same comparison under SC
//! with `--races deny` and TSO with `--races warn`.
//!
//! In CI: all litmus tests under TSO, the first 40 random programs, and every 4th
//! corpus program at -O1. `TSO_SOAK=N` runs N random programs and every corpus
//! program (`scripts/soak-symmetry.sh`); `TSO_SEED=S` shifts the seeds.
//!
//! The join-array rule (`store/symmetry.rs`, "Joining the array in another order")
//! against the search without it: the corpus at -O0 and generated programs that start
//! workers into an array and join them (`gen_join`), under SC and TSO.

use std::collections::BTreeSet;
use tso_suite::check::{
    answer_difference, assert_no_problems, assert_none_differ, differential_runs, CheckResult,
    CheckRun, Model,
};

/// The memory locations of the races a run reports.
fn race_locations(r: &CheckResult) -> Option<BTreeSet<String>> {
    let list = r.json.as_ref()?.get("races")?.as_array()?;
    list.iter()
        .map(|x| Some(x.get("memory")?.as_str()?.to_string()))
        .collect()
}

/// The problem with running `run` with and without symmetry, if any; `count` also
/// requires no more states with it.
fn compare(name: &str, run: CheckRun, count: bool) -> Option<String> {
    compare_with(name, run.clone(), run.tool_args(&["--no-symmetry"]), count)
}

/// The problem with `with` against `without`, if any (see `compare`).
fn compare_with(name: &str, with: CheckRun, without: CheckRun, count: bool) -> Option<String> {
    let with = with.run();
    let without = without.run();
    if let Some(problem) = answer_difference(
        name,
        ("with symmetry   ", &with),
        ("without symmetry", &without),
    ) {
        return Some(problem);
    }
    if race_locations(&with) != race_locations(&without) {
        return Some(format!(
            "{name}: races differ\n  with symmetry:    {:?}\n  without symmetry: {:?}",
            race_locations(&with),
            race_locations(&without)
        ));
    }
    // A run stopped by a limit may stop anywhere; a finished one stores at most as many.
    if count && with.verdict() == Some("pass") && with.states() > without.states() {
        return Some(format!(
            "{name}: {:?} states with symmetry, {:?} without",
            with.states(),
            without.states()
        ));
    }
    None
}

#[test]
fn symmetry_changes_no_answer() {
    let every = if tso_suite::soaking() { 1 } else { 4 };
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "differential_symmetry");
    let runs: Vec<(String, CheckRun)> = differential_runs(&dir, 40, every)
        .into_iter()
        .map(|(_, name, run)| (name, run))
        .collect();
    assert_no_problems(&runs, |name, run| compare(name, run.clone(), true));
}

/// States are not counted here: on a few of these programs (threads of different
/// routines, handles in an array) the traversal up to symmetry stores a few more
/// states than the plain one, with races tracked or not and already before race data
/// was renamed (seed 27 under SC: 148 against 141). Its order is then not canonical
/// for every arrangement, which splits states (merges less), never merges more.
#[test]
fn symmetry_changes_no_race_verdict() {
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "differential_symmetry_races");
    let seeds: Vec<u64> = tso_suite::soak_seeds(40).collect();
    let runs: Vec<(String, CheckRun)> = seeds
        .iter()
        .map(|&seed| {
            let program = tso_suite::gen_race::generate(seed);
            let path = dir.join(format!("seed_{seed}.c"));
            std::fs::write(&path, program.to_c()).expect("write program");
            let (model, policy) = if seed % 2 == 0 {
                (Model::Sc, "deny")
            } else {
                (Model::Tso, "warn")
            };
            let run = CheckRun::new(&path, model)
                .tool_args(&["--races", policy])
                .clang_args(&["-O0"]);
            (format!("race program seed {seed} --races {policy}"), run)
        })
        .collect();
    assert_no_problems(&runs, |name, run| compare(name, run.clone(), false));
}

/// The join-array rule (on by default, `--no-join-symmetry`; `store/symmetry.rs`,
/// "Joining the array in another order") against the default, on the corpus at -O0
/// (the shape it recognises: `main`'s join loop as clang writes it unoptimised) under
/// SC and TSO, and the benchmark programs it applies to.
#[test]
fn join_symmetry_changes_no_answer() {
    let every = if tso_suite::soaking() { 1 } else { 4 };
    let files = tso_suite::corpus::sources_under(&tso_suite::suite_dir().join("programs"));
    let mut runs: Vec<(String, CheckRun, CheckRun)> = Vec::new();
    for file in files.iter().step_by(every) {
        let program = tso_suite::corpus::read_program(file).unwrap_or_else(|e| panic!("{e}"));
        for model in [Model::Sc, Model::Tso] {
            let run = CheckRun::new(file, model)
                .tool_args(&program.check_args)
                .clang_args(&["-O0"]);
            let name = format!("{} {} -O0", file.display(), model.as_str());
            runs.push((name, run.clone(), run.tool_args(&["--no-join-symmetry"])));
        }
    }
    let bench = tso_suite::suite_dir().join("../bench/programs");
    for program in ["mcs4.c", "ticket4x2_acqrel.c"] {
        let run = CheckRun::new(bench.join(program), Model::Tso);
        runs.push((
            program.to_string(),
            run.clone(),
            run.tool_args(&["--no-join-symmetry"]),
        ));
    }
    assert_none_differ(tso_suite::parallel::map(&runs, |(name, with, without)| {
        compare_with(name, with.clone(), without.clone(), true)
    }));
}

/// The join-array rule on generated programs (`gen_join`): workers started into
/// `main`'s array, told apart or not, joined in the loop the rule recognises or in a
/// shape it must refuse, at -O0 (and -O1, every other seed) under SC and TSO with
/// outcomes. With the rule and without: the same verdict, error kind and location (a
/// hang included), outcomes and races; a failure's counterexample the same (it is
/// searched again without the rule); and a refused shape stores exactly the same
/// states (the search is the one without the rule). At least one run must store fewer states with the rule, or the
/// generator no longer reaches it. A run the rule applies to may store more states
/// (`store/symmetry.rs`, "Joining the array in another order": sorting is no
/// congruence, and under SC the workers' clocks from their creation on can keep them
/// from merging back), so states are not compared there.
#[test]
fn join_symmetry_on_generated_join_arrays() {
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "differential_join_symmetry");
    let mut runs: Vec<(String, CheckRun, bool)> = Vec::new();
    for seed in tso_suite::soak_seeds(60) {
        let program = tso_suite::gen_join::generate(seed);
        let path = dir.join(format!("join_{seed}.c"));
        std::fs::write(&path, &program.source).expect("write program");
        // With optimisation the join loop is one block and its index a phi: the rule
        // must refuse there what it refuses at -O0. Every other seed, to keep the time.
        let opts: &[&str] = if seed % 2 == 0 {
            &["-O0", "-O1"]
        } else {
            &["-O0"]
        };
        for &opt in opts {
            for model in [Model::Sc, Model::Tso] {
                let run = CheckRun::new(&path, model).outcomes().clang_args(&[opt]);
                let name = format!("join-array seed {seed} {} {opt}", model.as_str());
                runs.push((name, run, program.recognised));
            }
        }
    }
    let results: Vec<(Option<String>, bool)> =
        tso_suite::parallel::map(&runs, |(name, run, recognised)| {
            let with = run.clone().tool_args(JOIN_ON);
            let without = run.clone().tool_args(JOIN_OFF);
            let (with, without) = (with.run(), without.run());
            let merged = with.states() < without.states();
            (join_difference(name, &with, &without, *recognised), merged)
        });
    let merged = results.iter().filter(|r| r.1).count();
    assert_none_differ(results.into_iter().map(|r| r.0).collect());
    assert!(
        merged > 0,
        "the rule merged states in none of {} runs",
        runs.len()
    );
}

/// The arguments that switch the join-array rule on and off.
const JOIN_ON: &[&str] = &[];
const JOIN_OFF: &[&str] = &["--no-join-symmetry"];

/// The problem with a generated program's run with the join-array rule against the
/// run without it, if any (see `join_symmetry_on_generated_join_arrays`).
fn join_difference(
    name: &str,
    with: &CheckResult,
    without: &CheckResult,
    recognised: bool,
) -> Option<String> {
    if let Some(problem) = answer_difference(
        name,
        ("with the join-array rule", with),
        ("without it              ", without),
    ) {
        return Some(problem);
    }
    if race_locations(with) != race_locations(without) {
        return Some(format!(
            "{name}: races differ\n  with the rule: {:?}\n  without:       {:?}",
            race_locations(with),
            race_locations(without)
        ));
    }
    let field = |r: &CheckResult, k: &str| r.json.as_ref().and_then(|j| j.get(k).cloned());
    if with.verdict() == Some("fail") && field(with, "trace") != field(without, "trace") {
        return Some(format!(
            "{name}: the counterexamples differ\n  {with}\n  {without}"
        ));
    }
    if !recognised && with.states() != without.states() {
        return Some(format!(
            "{name}: a shape the rule must refuse: {:?} states with it, {:?} without",
            with.states(),
            without.states()
        ));
    }
    None
}
