//! Differential testing of the TSO encodings at the C level: for random
//! small programs (tests/src/gen_tso.rs) with mixed-width overlapping accesses,
//! - the delayed-flush encoding (`--memory-model tso`) reaches exactly the outcomes of
//!   the reference machine (`--memory-model tso --reference-machine`) at bounds 1, 2
//!   and 0 (unbounded);
//! - SC outcomes are a subset of TSO outcomes, and bound 1 ⊆ bound 2 ⊆ unbounded;
//! - both equal the outcomes of an operational x86-TSO machine written in the test
//!   itself (`gen_tso::machine_outcomes`), and the SC run equals its SC enumeration.
//!
//! Every check of one program in `WORKERS_EVERY` runs with one search worker and with
//! two: the same verdict, outcomes and number of stored states.
//!
//! In CI the test runs the first 150 seeds. `TSO_SOAK=N` runs N programs instead;
//! `TSO_SEED=S` shifts the seeds.

use std::collections::BTreeSet;
use std::time::Instant;
use tso_suite::check::{self, CheckRun, Model};
use tso_suite::gen_tso::{self, TsoProgram};
use tso_suite::parallel;

/// Programs per CI run (`TSO_SOAK=N` for more). A fixed count, not a time budget, so
/// coverage does not depend on how loaded the machine is.
const CI_PROGRAMS: u64 = 150;
const BOUNDS: [u32; 3] = [1, 2, 0];
/// One program in this many (by seed) also runs every check with two search workers
/// (`TSO_WORKERS_ALL=1`: every program).
const WORKERS_EVERY: usize = 3;

fn show(set: &BTreeSet<String>) -> String {
    format!("{:?}", set.iter().collect::<Vec<_>>())
}

/// The outcome set of a run that passed; otherwise the run is recorded as a problem.
fn settle(
    r: tso_suite::check::CheckResult,
    name: &str,
    problems: &mut Vec<String>,
) -> BTreeSet<String> {
    match r.outcomes() {
        Some(set) if r.passed() => set,
        _ => {
            problems.push(format!("{name}: {r}"));
            BTreeSet::new()
        }
    }
}

/// Every problem with one program, empty when it is right. `TSO_SUITE_VERBOSE` prints
/// each run's wall time and state count.
fn check_program(program: &TsoProgram, dir: &std::path::Path) -> Vec<String> {
    let path = dir.join(format!("seed_{}.c", program.seed));
    if let Err(e) = std::fs::write(&path, program.to_c()) {
        return vec![format!("cannot write {}: {e}", path.display())];
    }
    let mut problems = Vec::new();
    let verbose = std::env::var_os("TSO_SUITE_VERBOSE").is_some();
    let compare = check::compare_workers(program.seed as usize, WORKERS_EVERY);
    let mut outcomes = |run: CheckRun, name: &str| {
        let runs = run.run_on_workers(compare);
        if verbose {
            let r = &runs.first;
            eprintln!(
                "seed {} {name}: {:?}, states {:?}",
                program.seed,
                r.wall,
                r.states()
            );
        }
        if let Some(d) = runs.difference() {
            problems.push(format!("{name}: {d}"));
        }
        settle(runs.first, name, &mut problems)
    };
    let sc = outcomes(CheckRun::new(&path, Model::Sc).outcomes(), "sc");
    let mut tso = Vec::new();
    let mut reference = Vec::new();
    for b in BOUNDS {
        tso.push(outcomes(
            CheckRun::new(&path, Model::Tso).sb_bound(b).outcomes(),
            &format!("tso bound {b}"),
        ));
        reference.push(outcomes(
            CheckRun::new(&path, Model::Tso)
                .sb_bound(b)
                .reference_machine()
                .outcomes(),
            &format!("reference bound {b}"),
        ));
    }
    if !problems.is_empty() {
        return problems;
    }
    let oracle_sc = gen_tso::machine_outcomes(program, Some(0));
    if sc != oracle_sc {
        problems.push(format!(
            "sc differs from the SC enumeration: engine {} oracle {}",
            show(&sc),
            show(&oracle_sc)
        ));
    }
    for (i, b) in BOUNDS.iter().enumerate() {
        if tso[i] != reference[i] {
            problems.push(format!(
                "bound {b}: delayed-flush only {}, reference-machine only {}",
                show(&tso[i].difference(&reference[i]).cloned().collect()),
                show(&reference[i].difference(&tso[i]).cloned().collect())
            ));
        }
        if !sc.is_subset(&tso[i]) {
            problems.push(format!(
                "bound {b}: SC outcomes missing under TSO: {}",
                show(&sc.difference(&tso[i]).cloned().collect())
            ));
        }
        let oracle =
            gen_tso::machine_outcomes(program, if *b == 0 { None } else { Some(*b as usize) });
        if tso[i] != oracle {
            problems.push(format!(
                "bound {b}: delayed-flush vs the test's x86-TSO machine: tool only {}, machine only {}",
                show(&tso[i].difference(&oracle).cloned().collect()),
                show(&oracle.difference(&tso[i]).cloned().collect())
            ));
        }
    }
    if !(tso[0].is_subset(&tso[1]) && tso[1].is_subset(&tso[2])) {
        problems.push("outcomes do not grow with the bound (1 ⊆ 2 ⊆ unbounded fails)".into());
    }
    problems
}

#[test]
fn delayed_flush_equals_reference_machine() {
    let seeds = tso_suite::soak_seeds(CI_PROGRAMS);
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "differential_tso");
    let base = seeds.start;
    let seeds: Vec<u64> = seeds.collect();
    let started = Instant::now();
    let results = parallel::map(&seeds, |&seed| {
        let program = gen_tso::generate(seed);
        let problems = check_program(&program, &dir);
        (!problems.is_empty()).then(|| {
            format!(
                "seed {seed}:\n  {}\n{}",
                problems.join("\n  "),
                program.to_c()
            )
        })
    });
    let ran = results.len();
    let failures: Vec<String> = results.into_iter().flatten().collect();
    eprintln!(
        "differential_tso: {ran} programs (seeds from {base}), {} with problems, {:?}",
        failures.len(),
        started.elapsed()
    );
    // Long reports are cut: the first failures and the count are what a person needs.
    let shown: Vec<&str> = failures.iter().take(5).map(|s| s.as_str()).collect();
    assert!(
        failures.is_empty(),
        "{} of {ran} generated programs fail (first {} shown):\n\n{}",
        failures.len(),
        shown.len(),
        shown.join("\n\n")
    );
}

/// Programs whose threads or process end while store buffers still hold entries, with
/// outcomes each must reach under TSO (and, for the SC-only ones, under SC).
const EXIT_PROGRAMS: &[(&str, &str, &[&str], &[&str])] = &[
    (
        // main returns with `x = 1` possibly buffered; the thread may print before or
        // after the store reaches memory, or not at all (the process ended first).
        "main_returns_buffered",
        "#include <pthread.h>\n#include <stdio.h>\nvolatile int x;\n\
         static void *t(void *a) { (void)a; int r = x; printf(\"r=%d\\n\", r); return 0; }\n\
         int main(void) { pthread_t h; pthread_create(&h, 0, t, 0); x = 1; return 0; }\n",
        &["", "r=0", "r=1"],
        &["", "r=0", "r=1"],
    ),
    (
        // Store buffering where each thread returns its load: both loads may read 0
        // when each thread ends (draining its buffer) only after the other's load.
        "threads_return_loads",
        "#include <pthread.h>\n#include <stdio.h>\nvolatile int x, y;\n\
         static void *t1(void *a) { (void)a; x = 1; return (void *)(long)y; }\n\
         static void *t2(void *a) { (void)a; y = 1; return (void *)(long)x; }\n\
         int main(void) { pthread_t a, b; void *r1, *r2;\n\
           pthread_create(&a, 0, t1, 0); pthread_create(&b, 0, t2, 0);\n\
           pthread_join(a, &r1); pthread_join(b, &r2);\n\
           printf(\"%ld %ld\\n\", (long)r1, (long)r2); return 0; }\n",
        &["0 1", "1 0", "1 1"],
        &["0 0", "0 1", "1 0", "1 1"],
    ),
    (
        // exit() while the other thread's store may still be buffered; main reads y
        // first, so what it prints depends on the other buffer.
        "exit_with_other_buffer",
        "#include <pthread.h>\n#include <stdio.h>\n#include <stdlib.h>\nvolatile int x, y;\n\
         static void *t(void *a) { (void)a; y = 1; int r = x; printf(\"t%d\\n\", r); return 0; }\n\
         int main(void) { pthread_t h; pthread_create(&h, 0, t, 0); x = 1; int r = y;\n\
           printf(\"m%d\\n\", r); exit(0); }\n",
        &[
            "m0", "m1", "m0\nt1", "t1\nm0", "m1\nt0", "t0\nm1", "m1\nt1", "t1\nm1",
        ],
        &[
            "m0", "m1", "m0\nt0", "t0\nm0", "m0\nt1", "t1\nm0", "m1\nt0", "t0\nm1", "m1\nt1",
            "t1\nm1",
        ],
    ),
];

/// The delayed-flush encoding and the reference machine agree on programs that end
/// threads or the process with non-empty buffers, and reach the expected outcomes.
#[test]
fn exits_with_buffered_stores_agree() {
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "differential_tso_exits");
    let mut problems = Vec::new();
    for (name, source, sc_want, tso_want) in EXIT_PROGRAMS {
        let path = dir.join(format!("{name}.c"));
        std::fs::write(&path, source).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let set = |want: &[&str]| want.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
        let sc = settle(
            CheckRun::new(&path, Model::Sc).outcomes().run(),
            &format!("{name} sc"),
            &mut problems,
        );
        if sc != set(sc_want) {
            problems.push(format!("{name}: sc reached {}", show(&sc)));
        }
        for b in BOUNDS {
            let tso = settle(
                CheckRun::new(&path, Model::Tso)
                    .sb_bound(b)
                    .outcomes()
                    .run(),
                &format!("{name} tso bound {b}"),
                &mut problems,
            );
            let reference = settle(
                CheckRun::new(&path, Model::Tso)
                    .sb_bound(b)
                    .reference_machine()
                    .outcomes()
                    .run(),
                &format!("{name} reference bound {b}"),
                &mut problems,
            );
            if tso != reference {
                problems.push(format!(
                    "{name} bound {b}: delayed-flush {} vs reference machine {}",
                    show(&tso),
                    show(&reference)
                ));
            }
            if tso != set(tso_want) {
                problems.push(format!("{name} bound {b}: tso reached {}", show(&tso)));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The 16-byte locked instructions of the litmus corpus (`lock cmpxchg16b` and a
/// 16-byte `atomicrmw`, exchange and add) reach on the delayed-flush encoding exactly
/// the outcomes of the reference machine, at bounds 1, 2 and unbounded.
#[test]
fn sixteen_byte_locked_instructions_agree_with_the_reference_machine() {
    let litmus = tso_suite::suite_dir().join("litmus");
    let jobs: Vec<(&str, u32)> = ["sb_cmpxchg16b.c", "sb_rmw16b.c"]
        .into_iter()
        .flat_map(|f| BOUNDS.into_iter().map(move |b| (f, b)))
        .collect();
    let results = parallel::map(&jobs, |&(file, b)| {
        let path = litmus.join(file);
        let mut problems = Vec::new();
        let run = |reference: bool| {
            let run = CheckRun::new(&path, Model::Tso).sb_bound(b).outcomes();
            if reference {
                run.reference_machine()
            } else {
                run
            }
            .run()
        };
        let tso = settle(run(false), "tso", &mut problems);
        let reference = settle(run(true), "reference", &mut problems);
        if tso != reference || tso.is_empty() {
            problems.push(format!(
                "delayed-flush {} reference machine {}",
                show(&tso),
                show(&reference)
            ));
        }
        (!problems.is_empty()).then(|| format!("{file} bound {b}: {}", problems.join("; ")))
    });
    let failures: Vec<String> = results.into_iter().flatten().collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
