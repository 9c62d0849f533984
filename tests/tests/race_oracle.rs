//! Data-race detection against an independent oracle: generated straight-line
//! programs (plain and atomic loads and stores, RMWs, awaits, a mutex, fences, accesses
//! through a pointer passed to the thread or read from a shared pointer, and a reference
//! count whose last owner frees the data); the engine must
//! report a race exactly when the oracle, which enumerates every interleaving and
//! builds happens-before from its definition (tests/src/gen_race.rs), finds one. Both
//! directions count: no race reported that no execution has, none missed.
//!
//! Even seeds run `--races deny` under SC (the verdict is `data-race` or pass); odd
//! seeds run the default `--races warn` under TSO (the verdict is pass and the `races`
//! array is empty or not). Each program runs a second time with its globals on the
//! heap, where the rule that leaves out heap reads no unaware thread can still write
//! (`race_read_futures`, on by default) applies. `TSO_SOAK=N` runs N programs instead of 160;
//! `TSO_SEED=S` shifts the seeds.
//!
//! A second generator (`gen_race::generate_merging`) adds branches that rejoin and
//! loops, so that paths meet in one state after differing in who saw a read: there
//! every racy location must be listed (`merging_programs_race_where_the_oracle_says`).
//! Broken on purpose, the heap-read rule (no thread a writer; a thread's writes after
//! its current block forgotten) disagrees on 6 and 1 of its 120 programs.

use std::time::Instant;
use tso_suite::check::{CheckResult, CheckRun, Model};
use tso_suite::gen_race;
use tso_suite::parallel;

#[test]
fn races_match_the_interleaving_oracle() {
    let seeds = tso_suite::soak_seeds(160);
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "race_oracle");
    let count = seeds.end - seeds.start;
    let seeds: Vec<u64> = seeds.collect();
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
    // And programs whose only race is with the release of the last reference (a
    // deallocation is a write of the whole object).
    let release_decides = programs
        .iter()
        .filter(|p| p.has_race() != p.without_puts().has_race())
        .count();
    assert!(
        release_decides * 40 >= count as usize,
        "the generator must give programs whose race the release decides \
         ({release_decides} of {count})"
    );
    // Each program also with its globals on the heap, where the reads no unaware
    // thread can still write are left out (`race_read_futures`): the same races.
    let runs: Vec<(u64, bool)> = seeds
        .iter()
        .flat_map(|&s| [(s, false), (s, true)])
        .collect();
    let results: Vec<(bool, Option<String>)> = parallel::map(&runs, |&(seed, heap)| {
        let (racy, source, path) = write_generated(&dir, seed, &gen_race::generate(seed), heap);
        let path = match path {
            Ok(path) => path,
            Err(error) => return (racy, Some(error)),
        };
        let (model, policy) = if seed % 2 == 0 {
            (Model::Sc, "deny")
        } else {
            (Model::Tso, "warn")
        };
        let args = ["--races", policy];
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

/// A default TSO check asks the race screen in its TSO run (`tso_engine::race::screen`,
/// "Asked in the TSO run") and skips the race search when no state of that run holds
/// two conflicting next accesses. So every generated program the oracle finds racy,
/// with its globals as globals and on the heap, must have its race search run and its
/// race listed; and the search must be skipped for some race-free programs, or the
/// rule is not exercised. Dropping one kind of access from what the runtime's natives
/// tell the screen (stores, say) makes racy programs skip it. `TSO_SOAK=N` runs N
/// programs instead of 160, `TSO_SEED=S` shifts the seeds.
#[test]
fn the_tso_run_skips_the_race_search_only_without_races() {
    let seeds: Vec<u64> = tso_suite::soak_seeds(160).collect();
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "race_oracle_tso_screen");
    let runs: Vec<(u64, bool)> = seeds
        .iter()
        .flat_map(|&s| [(s, false), (s, true)])
        .collect();
    // (racy, race search skipped, disagreement)
    let results: Vec<(bool, bool, Option<String>)> = parallel::map(&runs, |&(seed, heap)| {
        let (racy, source, path) = write_generated(&dir, seed, &gen_race::generate(seed), heap);
        let path = match path {
            Ok(path) => path,
            Err(error) => return (racy, false, Some(error)),
        };
        let r = CheckRun::new(&path, Model::Tso).clang_args(&["-O0"]).run();
        let json = r.json.as_ref();
        let searched = json
            .and_then(|j| j.get("phases"))
            .and_then(|v| v.as_array())
            .is_some_and(|phases| {
                phases
                    .iter()
                    .any(|p| p.get("phase").and_then(|v| v.as_str()) == Some("race-search"))
            });
        let listed = json
            .and_then(|j| j.get("races"))
            .and_then(|v| v.as_array())
            .is_some_and(|a| !a.is_empty());
        let problem = if !r.passed() {
            Some(format!("seed {seed}: {r}"))
        } else if racy && !(searched && listed) {
            Some(format!(
                "seed {seed}{}: racy, but the race search {}\n{source}",
                if heap { " (on the heap)" } else { "" },
                if searched {
                    "listed no race"
                } else {
                    "was skipped"
                },
            ))
        } else if !racy && listed {
            Some(format!(
                "seed {seed}: race-free, but a race is listed\n{source}"
            ))
        } else {
            None
        };
        (racy, !searched, problem)
    });
    let skipped = results
        .iter()
        .filter(|(racy, skipped, _)| !racy && *skipped)
        .count();
    let race_free = results.iter().filter(|(racy, _, _)| !racy).count();
    let failures: Vec<String> = results.into_iter().filter_map(|(_, _, f)| f).collect();
    eprintln!(
        "race_oracle (TSO run screens): {} runs, the race search skipped in {skipped} of \
         {race_free} race-free ones, {} disagree",
        runs.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} runs disagree:\n\n{}",
        failures.len(),
        runs.len(),
        failures.join("\n\n")
    );
    assert!(
        skipped > 0,
        "the TSO run never answered the race screen ({race_free} race-free runs)"
    );
}

/// `program`, generated from `seed`, written into `dir` (with its globals on the heap
/// when `heap`): whether it races, its source, and its path or why it could not be
/// written.
fn write_generated(
    dir: &std::path::Path,
    seed: u64,
    program: &gen_race::RaceProgram,
    heap: bool,
) -> (bool, String, Result<std::path::PathBuf, String>) {
    let racy = program.has_race();
    let (source, name) = if heap {
        (program.to_c_heap(), format!("seed_{seed}_heap.c"))
    } else {
        (program.to_c(), format!("seed_{seed}.c"))
    };
    let path = dir.join(name);
    let written = std::fs::write(&path, &source)
        .map(|()| path.clone())
        .map_err(|e| format!("seed {seed}: cannot write {}: {e}", path.display()));
    (racy, source, written)
}

/// The racy locations a run lists, as bits of the globals (`gen_race::racy_locations`):
/// each race's first access is on a line of the generated source that names one
/// global, which also names a heap block by the global that points to it.
fn listed_locations(r: &CheckResult, source: &str, globals: usize) -> Option<u32> {
    let lines: Vec<&str> = source.lines().collect();
    let mut bits = 0;
    for race in r.json.as_ref()?.get("races")?.as_array()? {
        let at = race.get("first")?.get("location")?.as_str()?;
        let line: usize = at.rsplit(':').next()?.parse().ok()?;
        let text = lines.get(line.checked_sub(1)?)?;
        let g = (0..globals).find(|g| {
            text.split(|c: char| !c.is_alphanumeric())
                .any(|w| w == format!("g{g}"))
        })?;
        bits |= 1 << g;
    }
    Some(bits)
}

/// Programs whose paths meet after differing in who saw a read
/// (`gen_race::generate_merging`: reads on branches that rejoin, a read then maybe a
/// write of it, locked sections in either order, flags, loops), under SC with
/// `--races warn`: each must list exactly the locations some execution races on, with
/// its globals as globals and on the heap, where the heap reads no unaware thread can
/// still write leave the state (`race_read_futures`); that rule must also have merged
/// states in some of them. `TSO_SOAK=N` runs N programs instead of 120, `TSO_SEED=S`
/// shifts the seeds.
#[test]
fn merging_programs_race_where_the_oracle_says() {
    let seeds = tso_suite::soak_seeds(120);
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "race_oracle_merging");
    let count = seeds.end - seeds.start;
    let seeds: Vec<u64> = seeds.collect();
    let programs: Vec<gen_race::RaceProgram> = seeds
        .iter()
        .map(|&s| gen_race::generate_merging(s))
        .collect();
    let branching = programs.iter().filter(|p| p.branches()).count();
    assert!(
        branching * 2 >= count as usize,
        "the generator must give programs that branch: {branching} of {count}"
    );
    // (program, heap, rule off): the rule off only for the state count.
    let runs: Vec<(usize, bool, bool)> = (0..programs.len())
        .flat_map(|i| [(i, false, false), (i, true, false), (i, true, true)])
        .collect();
    let started = Instant::now();
    let results: Vec<(Option<u64>, Option<String>)> =
        parallel::map(&runs, |&(i, heap, rule_off)| {
            let program = &programs[i];
            let seed = program.seed;
            let (source, name) = match (heap, rule_off) {
                (true, false) => (program.to_c_heap(), format!("seed_{seed}_heap.c")),
                (true, true) => (program.to_c_heap(), format!("seed_{seed}_heap_off.c")),
                _ => (program.to_c(), format!("seed_{seed}.c")),
            };
            let path = dir.join(name);
            if let Err(e) = std::fs::write(&path, &source) {
                return (None, Some(format!("seed {seed}: {}: {e}", path.display())));
            }
            let mut args = vec!["--races", "warn"];
            if rule_off {
                args.push("--no-race-read-futures");
            }
            let r = CheckRun::new(&path, Model::Sc)
                .tool_args(&args)
                .clang_args(&["-O0"])
                .run();
            let want = program.racy_locations();
            let problem = match listed_locations(&r, &source, program.globals) {
                _ if !r.passed() => Some(format!("seed {seed}: {r}\n{source}")),
                Some(got) if got == want => None,
                Some(got) => Some(format!(
                    "seed {seed} (sc --races warn{}): the engine lists races on {got:#b}, \
                     the oracle finds them on {want:#b}\n{}\n{source}",
                    if heap { ", on the heap" } else { "" },
                    r.json
                        .as_ref()
                        .map_or(String::new(), |j| j["races"].to_string()),
                )),
                None => Some(format!("seed {seed}: unreadable races: {r}\n{source}")),
            };
            (r.states(), problem.filter(|_| !rule_off))
        });
    let racy = programs.iter().filter(|p| p.racy_locations() != 0).count();
    let merged = (0..programs.len())
        .filter(|i| {
            let states = |k: usize| results[3 * i + k].0;
            matches!((states(1), states(2)), (Some(with), Some(without)) if with < without)
        })
        .count();
    let failures: Vec<String> = results.into_iter().filter_map(|(_, f)| f).collect();
    eprintln!(
        "race_oracle (merging): {count} programs ({racy} racy, {branching} branching, {merged} \
         with fewer states by the heap-read rule), {} disagree, {:?}",
        failures.len(),
        started.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} of {} runs disagree with the race oracle:\n\n{}",
        failures.len(),
        2 * count,
        failures.join("\n\n")
    );
    assert!(
        racy * 5 >= count as usize && (count as usize - racy) * 10 >= count as usize,
        "the generator must give racy and race-free programs: {racy} of {count} racy"
    );
    assert!(
        merged * 10 >= count as usize,
        "the heap-read rule must merge states in some programs: {merged} of {count}"
    );
}

/// The race screen (`tso_engine::race::screen`) against the history-based search and
/// the oracle: the generator's programs with every atomic made one that synchronises
/// (`RaceProgram::synchronising`), where the screen applies, run under TSO with the
/// default `--races warn`, screened and with `--no-race-screen`. The screen must apply
/// to each; when it finds no two conflicting next accesses (it then decides alone) the
/// oracle must find no race; both runs must give the same verdict and the same races
/// (the same racy locations and accesses); and both must agree with the oracle. Run on
/// the globals and on the heap. `TSO_SOAK=N` runs N programs instead of 80, `TSO_SEED=S`
/// shifts the seeds.
#[test]
fn the_race_screen_agrees_with_access_histories_and_the_oracle() {
    let seeds: Vec<u64> = tso_suite::soak_seeds(80).collect();
    let count = seeds.len();
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "race_oracle_screen");
    let runs: Vec<(u64, bool)> = seeds
        .iter()
        .flat_map(|&s| [(s, false), (s, true)])
        .collect();
    // (screen decided alone, racy, problem)
    let results: Vec<(bool, bool, Option<String>)> = parallel::map(&runs, |&(seed, heap)| {
        let program = gen_race::generate(seed).synchronising();
        let (racy, source, path) = write_generated(&dir, seed, &program, heap);
        let path = match path {
            Ok(path) => path,
            Err(error) => return (false, racy, Some(error)),
        };
        let run = |args: &[&str]| {
            CheckRun::new(&path, Model::Tso)
                .tool_args(args)
                .clang_args(&["-O0"])
                .run()
        };
        let screened = run(&[]);
        let history = run(&["--no-race-screen"]);
        let field = |r: &CheckResult, key: &str| r.json.as_ref().and_then(|j| j.get(key)).cloned();
        let screen = field(&screened, "race_screen")
            .and_then(|s| s.get("result")?.as_str().map(str::to_owned));
        let listed = field(&screened, "races").and_then(|r| r.as_array().map(|a| !a.is_empty()));
        let alone = screen.as_deref() == Some("no-conflict");
        let problem = if !screened.passed() || !history.passed() {
            Some(format!("seed {seed}: {screened}\n{history}"))
        } else if !matches!(screen.as_deref(), Some("no-conflict" | "conflict")) {
            Some(format!("seed {seed}: the screen did not apply: {screened}"))
        } else if alone && racy {
            Some(format!(
                "seed {seed}: the screen found no conflict, the oracle a race"
            ))
        } else if field(&screened, "races") != field(&history, "races") {
            Some(format!(
                "seed {seed}: screened and history-based runs list different races:\n{}\n{}",
                screened
                    .json
                    .as_ref()
                    .map_or(String::new(), |j| j["races"].to_string()),
                history
                    .json
                    .as_ref()
                    .map_or(String::new(), |j| j["races"].to_string()),
            ))
        } else if listed != Some(racy) {
            Some(format!(
                "seed {seed}: the engine {} a race, the oracle {}",
                if listed == Some(true) {
                    "reports"
                } else {
                    "reports no"
                },
                if racy { "finds one" } else { "finds none" }
            ))
        } else {
            None
        };
        (
            alone,
            racy,
            problem.map(|p| format!("{p}{}\n{source}", if heap { " (on the heap)" } else { "" })),
        )
    });
    let alone = results.iter().filter(|r| r.0).count();
    let racy = results.iter().filter(|r| r.1).count();
    let failures: Vec<String> = results.into_iter().filter_map(|r| r.2).collect();
    eprintln!(
        "race_oracle (screen): {} runs ({racy} racy, {alone} decided by the screen alone), {} disagree",
        2 * count,
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} runs disagree:\n\n{}",
        failures.len(),
        2 * count,
        failures.join("\n\n")
    );
    // Both ways must be exercised: programs the screen clears alone, and racy ones.
    assert!(
        alone * 5 >= count && racy * 5 >= count,
        "the screen must clear some programs alone ({alone}) and some must race ({racy}) of {}",
        2 * count
    );
}

/// The rules the race screen relies on, one program each, under TSO with the default
/// `--races warn`, screened and with `--no-race-screen` (the same verdict and races):
/// a relaxed read-modify-write (it heads no release sequence: the race on `x` never
/// shows as two conflicting next accesses) makes the screen not apply, and so does
/// every other reads-from that does not synchronise, each hiding a race on `x` the
/// same way (a relaxed store read by an acquire load, a release store read by a
/// relaxed load, the same through a third thread, a relaxed read-modify-write that a
/// release one reads), while a relaxed read-modify-write that continues a release
/// sequence still orders `x` (no race); two
/// `__VERIFIER_atomic_*` sections never conflict, a section and a plain access do; a
/// `free` ordered after the read by seq_cst atomics is cleared by the screen alone,
/// and one that is not races with the read (a deallocation is a write of the object);
/// the screen does not run a call of a synchronisation native (it makes no data
/// access), but runs a library call that reads shared memory (`strlen` racing with a
/// plain write); where a stack variable dies at a return after a mutex call, the
/// screened and history-based runs agree; and a thread's end deallocates its
/// published local, which conflicts with another thread's read of it.
#[test]
fn the_race_screen_rules() {
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "race_screen_rules");
    // (name, source, the screen's result, a race listed on this memory)
    let free_after_done = FREE_READ.replace("FREE", "if (atomic_load(&done))\n        free(p);");
    let free_at_once = FREE_READ.replace("FREE", "free(p);");
    let rmw_chain = |writer: &str, other: &str| {
        RMW_CHAIN
            .replace("WRITER", &format!("memory_order_{writer}"))
            .replace("OTHER", &format!("memory_order_{other}"))
    };
    let relaxed_rmw_chain = rmw_chain("relaxed", "release");
    let release_sequence_of_rmws = rmw_chain("release", "relaxed");
    let cases: [(&str, &str, &str, Option<&str>); 13] = [
        ("relaxed_rmw", RELAXED_RMW, "not-applicable", Some("`x`")),
        (
            "relaxed_store",
            RELAXED_STORE,
            "not-applicable",
            Some("`x`"),
        ),
        ("relaxed_load", RELAXED_LOAD, "not-applicable", Some("`x`")),
        (
            "relaxed_through_a_third_thread",
            RELAXED_THROUGH_A_THIRD_THREAD,
            "not-applicable",
            Some("`x`"),
        ),
        (
            "relaxed_rmw_chain",
            &relaxed_rmw_chain,
            "not-applicable",
            Some("`x`"),
        ),
        (
            "release_sequence_of_rmws",
            &release_sequence_of_rmws,
            "not-applicable",
            None,
        ),
        ("sections", SECTIONS, "no-conflict", None),
        ("section_plain", SECTION_PLAIN, "conflict", Some("`x`")),
        ("free_read", &free_after_done, "no-conflict", None),
        (
            "free_read_racy",
            &free_at_once,
            "conflict",
            Some("deallocates it"),
        ),
        ("library_read", LIBRARY_READ, "conflict", Some("`buf[1]`")),
        (
            "stack_ends_after_unlock",
            STACK_ENDS_AFTER_UNLOCK,
            "conflict",
            Some("deallocates it"),
        ),
        (
            "stack_ends_with_thread",
            STACK_ENDS_WITH_THREAD,
            "conflict",
            None,
        ),
    ];
    let mut problems = Vec::new();
    for (name, source, result, race) in cases {
        let path = dir.join(format!("{name}.c"));
        std::fs::write(&path, source).expect("write the program");
        let run = |args: &[&str]| CheckRun::new(&path, Model::Tso).tool_args(args).run();
        let (screened, history) = (run(&[]), run(&["--no-race-screen"]));
        let field = |r: &CheckResult, key: &str| r.json.as_ref().and_then(|j| j.get(key)).cloned();
        let got = field(&screened, "race_screen")
            .and_then(|s| s.get("result")?.as_str().map(str::to_owned));
        let races = field(&screened, "races").unwrap_or_default().to_string();
        if got.as_deref() != Some(result) {
            problems.push(format!(
                "{name}: the screen gave {got:?}, not {result}: {screened}"
            ));
        }
        if field(&screened, "races") != field(&history, "races")
            || screened.verdict() != history.verdict()
        {
            problems.push(format!(
                "{name}: screened and history-based runs differ:\n{screened}\n{history}"
            ));
        }
        match race {
            Some(memory) if !races.contains(memory) => {
                problems.push(format!("{name}: no race listed on {memory}: {races}"))
            }
            None if races != "[]" => problems.push(format!("{name}: races listed: {races}")),
            _ => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

const RELAXED_RMW: &str = r#"#include <pthread.h>
#include <stdatomic.h>
int x, r;
atomic_int c;
void *writer(void *a) { x = 1; atomic_fetch_add_explicit(&c, 1, memory_order_relaxed); return 0; }
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, writer, 0);
    while (!atomic_load_explicit(&c, memory_order_acquire))
        ;
    r = x;
    pthread_join(t, 0);
    return 0;
}
"#;

/// `main` reads `x` only once the relaxed store is visible, so the two accesses of `x`
/// are never enabled together, yet nothing orders them.
const RELAXED_STORE: &str = r#"#include <pthread.h>
#include <stdatomic.h>
int x, r;
atomic_int c;
void *writer(void *a) { x = 1; atomic_store_explicit(&c, 1, memory_order_relaxed); return 0; }
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, writer, 0);
    while (!atomic_load_explicit(&c, memory_order_acquire))
        ;
    r = x;
    pthread_join(t, 0);
    return 0;
}
"#;

/// The release store is read by a relaxed load: no synchronisation.
const RELAXED_LOAD: &str = r#"#include <pthread.h>
#include <stdatomic.h>
int x, r;
atomic_int c;
void *writer(void *a) { x = 1; atomic_store_explicit(&c, 1, memory_order_release); return 0; }
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, writer, 0);
    while (!atomic_load_explicit(&c, memory_order_relaxed))
        ;
    r = x;
    pthread_join(t, 0);
    return 0;
}
"#;

/// `relay` waits for the writer's release store with a relaxed load, then releases to
/// `main`: `main` happens after `relay`'s store but not after the write of `x`.
const RELAXED_THROUGH_A_THIRD_THREAD: &str = r#"#include <pthread.h>
#include <stdatomic.h>
int x, r;
atomic_int c, d;
void *writer(void *a) { x = 1; atomic_store_explicit(&c, 1, memory_order_release); return 0; }
void *relay(void *a) {
    while (!atomic_load_explicit(&c, memory_order_relaxed))
        ;
    atomic_store_explicit(&d, 1, memory_order_release);
    return 0;
}
int main(void) {
    pthread_t t1, t2;
    pthread_create(&t1, 0, writer, 0);
    pthread_create(&t2, 0, relay, 0);
    while (!atomic_load_explicit(&d, memory_order_acquire))
        ;
    r = x;
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    return 0;
}
"#;

/// `main` waits for both increments, the writer's made with order `WRITER` and
/// `other`'s with `OTHER`. With a relaxed writer and a release `other`, it synchronises
/// with `other` (directly, or through the writer's increment that continues its
/// release sequence), never with the writer: a race. With the orders swapped, the
/// writer's increment heads a release sequence that `other`'s continues, so `main`
/// synchronises with the writer whichever it reads: no race.
const RMW_CHAIN: &str = r#"#include <pthread.h>
#include <stdatomic.h>
int x, r;
atomic_int c;
void *writer(void *a) { x = 1; atomic_fetch_add_explicit(&c, 1, WRITER); return 0; }
void *other(void *a) { atomic_fetch_add_explicit(&c, 1, OTHER); return 0; }
int main(void) {
    pthread_t t1, t2;
    pthread_create(&t1, 0, writer, 0);
    pthread_create(&t2, 0, other, 0);
    while (atomic_load_explicit(&c, memory_order_acquire) < 2)
        ;
    r = x;
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    return 0;
}
"#;

const SECTIONS: &str = r#"#include <pthread.h>
int x;
void __VERIFIER_atomic_inc(void) { x = x + 1; }
void *inc(void *a) { __VERIFIER_atomic_inc(); return 0; }
int main(void) {
    pthread_t t1, t2;
    pthread_create(&t1, 0, inc, 0);
    pthread_create(&t2, 0, inc, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    return x == 2 ? 0 : 1;
}
"#;

const SECTION_PLAIN: &str = r#"#include <pthread.h>
int x;
void __VERIFIER_atomic_inc(void) { x = x + 1; }
void *inc(void *a) { __VERIFIER_atomic_inc(); return 0; }
void *plain(void *a) { x = x + 1; return 0; }
int main(void) {
    pthread_t t1, t2;
    pthread_create(&t1, 0, inc, 0);
    pthread_create(&t2, 0, plain, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    return 0;
}
"#;

/// `strlen` in one thread reads what `main` writes, under a mutex in `main` only.
const LIBRARY_READ: &str = r#"#include <pthread.h>
#include <string.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
char buf[4] = "ab";
unsigned long n;
void *reader(void *a) {
    n = strlen(buf);
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, reader, 0);
    pthread_mutex_lock(&m);
    buf[1] = 0;
    pthread_mutex_unlock(&m);
    pthread_join(t, 0);
    return n > 2;
}
"#;

/// `publish` hands its stack variable `x` to the reader, then locks and unlocks a mutex
/// and returns: the end of `x` is in the transition of `pthread_mutex_unlock`, and
/// nothing orders it after the reader's read of `x`.
const STACK_ENDS_AFTER_UNLOCK: &str = r#"#include <pthread.h>
#include <stdatomic.h>
_Atomic(int *) published;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int r;
void *reader(void *a) {
    int *p = atomic_load(&published);
    if (p)
        r = *p;
    return 0;
}
void publish(void) {
    int x = 1;
    atomic_store(&published, &x);
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, reader, 0);
    publish();
    pthread_join(t, 0);
    return 0;
}
"#;

/// The writer's local dies when the writer ends, which its release store lets `main`
/// read first (a use-after-free on the path where the writer ends first).
const STACK_ENDS_WITH_THREAD: &str = r#"#include <pthread.h>
#include <stdatomic.h>
_Atomic(int *) published;
int r;
void *writer(void *a) {
    int x = 1;
    atomic_store_explicit(&published, &x, memory_order_release);
    return 0;
}
int main(void) {
    pthread_t t;
    pthread_create(&t, 0, writer, 0);
    int *p = atomic_load(&published);
    if (p)
        r = *p;
    pthread_join(t, 0);
    return 0;
}
"#;

/// A reader of a published heap block; `FREE` is where `main` frees it.
const FREE_READ: &str = r#"#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
_Atomic(int *) published;
atomic_int done;
int r;
void *reader(void *a) {
    int *p = atomic_load(&published);
    if (p)
        r = *p;
    atomic_store(&done, 1);
    return 0;
}
int main(void) {
    pthread_t t;
    int *p = malloc(sizeof *p);
    *p = 1;
    atomic_store(&published, p);
    pthread_create(&t, 0, reader, 0);
    FREE
    pthread_join(t, 0);
    return 0;
}
"#;

/// The race search beside the TSO run (`--race-search-order beside`: what a check with
/// an idle core does) reports exactly what it reports after it (`after`): the same exit
/// status, diagnostics and JSON but for times and the process's peak memory, under
/// `--races warn` and `deny`. On the generated programs (racy or not, the screen
/// answered by the TSO run or not applying), the race test programs (among them a
/// relaxed read-modify-write, where the race search starts with the TSO run), the
/// error programs (a TSO failure: the race search still runs) and with a state limit
/// that stops the TSO run (the race search started beside it is dropped).
#[test]
fn the_race_search_beside_the_tso_run_reports_as_after_it() {
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "race_search_beside");
    let programs_dir = tso_suite::suite_dir().join("programs");
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for seed in tso_suite::soak_seeds(30) {
        for heap in [false, true] {
            match write_generated(&dir, seed, &gen_race::generate(seed), heap).2 {
                Ok(path) => files.push(path),
                Err(error) => panic!("{error}"),
            }
        }
    }
    for sub in ["races", "errors"] {
        let mut listed: Vec<std::path::PathBuf> = std::fs::read_dir(programs_dir.join(sub))
            .unwrap_or_else(|e| panic!("{sub}: {e}"))
            .filter_map(|e| Some(e.ok()?.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "c" || x == "cpp"))
            .collect();
        listed.sort();
        files.extend(listed);
    }
    let variants: [&[&str]; 3] = [
        &["--races", "warn"],
        &["--races", "deny"],
        &["--races", "warn", "--max-states", "40"],
    ];
    let runs: Vec<(usize, usize)> = (0..files.len())
        .flat_map(|f| (0..variants.len()).map(move |v| (f, v)))
        .collect();
    // (the race search ran, problem)
    let results: Vec<(bool, Option<String>)> = parallel::map(&runs, |&(f, v)| {
        let run = |order: &str| {
            let mut args = variants[v].to_vec();
            args.extend(["--race-search-order", order]);
            CheckRun::new(&files[f], Model::Tso)
                .tool_args(&args)
                .clang_args(&["-O0"])
                .run()
        };
        let (after, beside) = (run("after"), run("beside"));
        let searched = beside
            .json
            .as_ref()
            .and_then(|j| j.get("phases")?.as_array().cloned())
            .is_some_and(|phases| {
                phases
                    .iter()
                    .any(|p| p.get("phase").and_then(|v| v.as_str()) == Some("race-search"))
            });
        let same = after.json.is_some()
            && after.json.as_ref().map(without_times) == beside.json.as_ref().map(without_times)
            && after.exit == beside.exit
            && after.stderr == beside.stderr;
        let problem = (!same).then(|| {
            format!(
                "{} {:?}: the orders differ\n  after:  {after}\n  beside: {beside}\n{}\n{}",
                files[f].display(),
                variants[v],
                after.stdout,
                beside.stdout
            )
        });
        (searched, problem)
    });
    let searched = results.iter().filter(|r| r.0).count();
    let failures: Vec<String> = results.into_iter().filter_map(|r| r.1).collect();
    eprintln!(
        "race search beside: {} pairs of runs, {searched} with a race search, {} differ",
        runs.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} pairs differ:\n\n{}",
        failures.len(),
        runs.len(),
        failures.join("\n\n")
    );
    assert!(
        searched * 4 >= runs.len(),
        "too few runs needed the race search ({searched} of {})",
        runs.len()
    );
}

/// A check's JSON without what may vary between runs of the same searches: times
/// (at any depth), the process's peak memory, and the `other` phase (the check's wall
/// time not in a search).
fn without_times(json: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match json {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, _)| !matches!(key.as_str(), "time_ms" | "peak_memory_bytes"))
                .filter(|(_, v)| v.get("phase").and_then(|p| p.as_str()) != Some("other"))
                .map(|(key, v)| (key.clone(), without_times(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .filter(|v| v.get("phase").and_then(|p| p.as_str()) != Some("other"))
                .map(without_times)
                .collect(),
        ),
        other => other.clone(),
    }
}
