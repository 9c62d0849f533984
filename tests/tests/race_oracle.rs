//! Data-race detection against an independent oracle: generated straight-line
//! programs (plain and atomic loads and stores, RMWs, awaits, a mutex, fences, accesses
//! through a pointer passed to the thread or read from a shared pointer); the engine must
//! report a race exactly when the oracle, which enumerates every interleaving and
//! builds happens-before from its definition (tests/src/gen_race.rs), finds one. Both
//! directions count: no race reported that no execution has, none missed.
//!
//! Even seeds run `--races deny` under SC (the verdict is `data-race` or pass); odd
//! seeds run the default `--races warn` under TSO (the verdict is pass and the `races`
//! array is empty or not). Each program runs a second time with its globals on the
//! heap and `--experimental-race-read-futures` (the rule that leaves out heap reads no
//! unaware thread can still write). `TSO_SOAK=N` runs N programs instead of 160;
//! `TSO_SEED=S` shifts the seeds.

use std::path::PathBuf;
use std::time::Instant;
use tso_suite::check::{CheckRun, Model};
use tso_suite::gen_race;
use tso_suite::parallel;

#[test]
fn races_match_the_interleaving_oracle() {
    let count = tso_suite::env_number("TSO_SOAK", 160);
    let base = tso_suite::env_number("TSO_SEED", 0);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("race_oracle");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let seeds: Vec<u64> = (base..base + count).collect();
    let started = Instant::now();
    // The fences and pointers must be exercised too: programs whose verdict a fence
    // decides, and programs that access memory through pointers.
    let programs: Vec<gen_race::RaceProgram> =
        seeds.iter().map(|&s| gen_race::generate(s)).collect();
    let fence_decides = programs
        .iter()
        .filter(|p| p.has_race() != p.without_fences().has_race())
        .count();
    let through_pointers = programs.iter().filter(|p| p.uses_pointers()).count();
    assert!(
        fence_decides * 40 >= count as usize && through_pointers * 5 >= count as usize,
        "the generator must give programs whose race a fence decides ({fence_decides} of \
         {count}) and programs with pointer accesses ({through_pointers} of {count})"
    );
    // Each program also with its globals on the heap, checked with the reads no
    // unaware thread can still write left out (`--experimental-race-read-futures`):
    // the same races.
    let runs: Vec<(u64, bool)> = seeds
        .iter()
        .flat_map(|&s| [(s, false), (s, true)])
        .collect();
    let results: Vec<(bool, Option<String>)> = parallel::map(&runs, |&(seed, heap)| {
        let program = gen_race::generate(seed);
        let racy = program.has_race();
        let (source, name) = if heap {
            (program.to_c_heap(), format!("seed_{seed}_heap.c"))
        } else {
            (program.to_c(), format!("seed_{seed}.c"))
        };
        let path = dir.join(name);
        if let Err(e) = std::fs::write(&path, &source) {
            return (
                racy,
                Some(format!("seed {seed}: cannot write {}: {e}", path.display())),
            );
        }
        let (model, policy) = if seed % 2 == 0 {
            (Model::Sc, "deny")
        } else {
            (Model::Tso, "warn")
        };
        let mut args = vec!["--races", policy];
        if heap {
            args.push("--experimental-race-read-futures");
        }
        let r = CheckRun::new(&path, model)
            .tool_args(&args)
            .clang_args(&["-O0"])
            .run();
        let reported = if policy == "deny" {
            match (r.verdict(), r.error_kind()) {
                (Some("pass"), None) => Some(false),
                (Some("fail"), Some("data-race")) => Some(true),
                _ => None,
            }
        } else {
            let races = r
                .json
                .as_ref()
                .and_then(|j| j.get("races"))
                .and_then(|v| v.as_array())
                .map(|a| !a.is_empty());
            races.filter(|_| r.passed())
        };
        let verdict = match reported {
            Some(found) if found == racy => None,
            Some(found) => Some(format!(
                "seed {seed} ({} --races {policy}{}): the engine {} a race, the oracle {}\n{source}",
                model.as_str(),
                if heap { ", on the heap" } else { "" },
                if found { "reports" } else { "reports no" },
                if racy { "finds one" } else { "finds none" },
            )),
            None => Some(format!("seed {seed}: {r}\n{source}")),
        };
        (racy, verdict)
    });
    // Each program ran twice.
    let racy = results.iter().filter(|(r, _)| *r).count() / 2;
    let failures: Vec<String> = results.into_iter().filter_map(|(_, f)| f).collect();
    eprintln!(
        "race_oracle: {count} programs ({racy} racy), {} disagree, {:?}",
        failures.len(),
        started.elapsed()
    );
    // Both directions must be exercised for the comparison to mean anything.
    assert!(
        racy * 5 >= count as usize && (count as usize - racy) * 5 >= count as usize,
        "the generator must give racy and race-free programs: {racy} of {count} racy"
    );
    assert!(
        failures.is_empty(),
        "{} of {count} generated programs disagree with the race oracle:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
