//! Multi-threaded programs against an independent oracle: generated
//! straight-line programs; the engine's SC outcome set (`--memory-model sc --outcomes`)
//! must equal the set a brute-force enumerator of all interleavings computes from the
//! generator's operation lists (tests/src/gen_sc.rs). Each program is checked with one
//! search worker and with two: the same outcomes and the same number of stored states.
//!
//! `TSO_SOAK=N` runs N programs instead of 200; `TSO_SEED=S` shifts the seeds.

use std::path::PathBuf;
use std::time::Instant;
use tso_suite::check::{self, CheckRun, Model};
use tso_suite::gen_sc;

#[test]
fn sc_outcomes_match_brute_force_enumeration() {
    let seeds = tso_suite::soak_seeds(200);
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "sc_oracle");
    let count = seeds.end - seeds.start;
    let seeds: Vec<u64> = seeds.collect();
    let started = Instant::now();
    let programs: Vec<(u64, gen_sc::ScProgram, String, PathBuf)> = seeds
        .iter()
        .map(|&seed| {
            let program = gen_sc::generate(seed);
            let source = program.to_c();
            let path = dir.join(format!("seed_{seed}.c"));
            std::fs::write(&path, &source)
                .unwrap_or_else(|e| panic!("seed {seed}: cannot write {}: {e}", path.display()));
            (seed, program, source, path)
        })
        .collect();
    // Shared globals are volatile, so -O2 keeps every access and its order.
    let opt = |seed: u64| if seed.is_multiple_of(2) { "-O0" } else { "-O2" };
    let runs = check::run_all_on_workers(
        &programs,
        |_| true,
        |(seed, _, _, path)| {
            CheckRun::new(path, Model::Sc)
                .outcomes()
                .clang_args(&[opt(*seed)])
        },
    );
    let failures: Vec<String> = programs
        .iter()
        .zip(&runs)
        .filter_map(|((seed, program, source, _), runs)| {
            let (r, opt) = (&runs.first, opt(*seed));
            let want = program.sc_outcomes();
            match r.outcomes() {
                Some(got) if r.passed() && got == want => runs
                    .difference()
                    .map(|d| format!("seed {seed} [{opt}]: {d}\n{source}")),
                Some(got) if r.passed() => Some(format!(
                    "seed {seed} [{opt}]: outcome sets differ\n  engine only: {:?}\n  oracle only: {:?}\n{source}",
                    got.difference(&want).collect::<Vec<_>>(),
                    want.difference(&got).collect::<Vec<_>>()
                )),
                _ => Some(format!("seed {seed} [{opt}]: {r}\n{source}")),
            }
        })
        .collect();
    eprintln!(
        "sc_oracle: {count} programs, {} disagree, {:?}",
        failures.len(),
        started.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} of {count} generated programs disagree with the SC enumerator:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
