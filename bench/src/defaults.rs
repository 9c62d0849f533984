//! `--defaults`: what users run. Each program is checked by the `cargo-tso` binary
//! exactly as `cargo tso check FILE` checks it, with no switches, in a process of its
//! own; the table gives the verdict, the states, the engine's time, the process's wall
//! time and its CPU time. `--cargo-tso PATH` (repeatable) runs other builds of the tool on the same
//! programs, one program at a time so that the machine's load hits them alike, with
//! each build's CPU time as a ratio of the first's.
//!
//! `--instructions` is the guard against slowdowns: each program is run under
//! callgrind (instructions, not seconds), twice: as `cargo tso check FILE` (the x86-TSO
//! run that gives the verdict, its race search after it) and with `--memory-model sc`
//! (the run that looks for data races, which the default TSO check makes beside or
//! after its own), both capped at
//! [`GUARD_STATES`] states so that each run takes seconds. `--write-baseline FILE` records
//! the counts; `--baseline FILE` compares against them and exits 1 when a count rises
//! more than [`GUARD_TOLERANCE`] over its baseline.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The `--defaults` set: programs shaped like users' tests, then the benchmark's older
/// programs that finish in seconds.
pub(crate) const DEFAULT_PROGRAMS: &[&str] = &[
    "rwspin3r2w.c",
    "treiber3.c",
    "mcs3x2.c",
    "ticket4x2_acqrel.c",
    "prodcons_cxx.cpp",
    "wsdeque3.c",
    "mcs4.c",
    "treiber3_c11.c",
    "mutex3.c",
    "indexer.c",
];

/// The state cap of every guarded run, the same in the baseline and the check.
const GUARD_STATES: u64 = 2_000;

/// How far a count may rise over its baseline before the guard fails.
const GUARD_TOLERANCE: f64 = 0.10;

/// The guarded runs of one program: the default check and its race-tracking SC run.
/// The capped TSO run ends inconclusive, which makes its race search needless: run
/// after it, that search never starts; run beside it (the default on an idle core), it
/// would be dropped after running as far as the thread scheduler let it, which is no
/// count to compare. So the TSO row is the TSO search alone, and the SC row its race
/// search.
const GUARD_RUNS: &[(&str, &[&str])] = &[
    ("tso", &["--race-search-order", "after"]),
    ("sc-races", &["--memory-model", "sc"]),
];

pub(crate) fn run_all(args: &[String]) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("programs");
    let only: Vec<&String> = operands(args);
    let programs: Vec<&str> = DEFAULT_PROGRAMS
        .iter()
        .copied()
        .filter(|p| only.is_empty() || only.iter().any(|o| p.starts_with(o.as_str())))
        .collect();
    let tools = tools(args);
    // The tool's bitcode cache in a directory of this run, so every build compiles the
    // same way and no user cache is touched.
    let cache = std::env::temp_dir().join(format!("tso-bench-defaults-{}", std::process::id()));
    let status = if args.iter().any(|a| a == "--instructions") {
        guard(args, &tools[0], &dir, &programs, &cache)
    } else {
        table(&tools, &dir, &programs, &cache);
        0
    };
    let _ = std::fs::remove_dir_all(&cache);
    std::process::exit(status);
}

/// The arguments that are not switches nor switches' values.
fn operands(args: &[String]) -> Vec<&String> {
    let mut out = Vec::new();
    let mut skip = false;
    for a in args {
        if skip {
            skip = false;
        } else if ["--cargo-tso", "--baseline", "--write-baseline"].contains(&a.as_str()) {
            skip = true;
        } else if !a.starts_with("--") {
            out.push(a);
        }
    }
    out
}

/// The builds of `cargo-tso` to run: every `--cargo-tso PATH`, else the one built
/// beside this benchmark.
fn tools(args: &[String]) -> Vec<PathBuf> {
    let given: Vec<PathBuf> = args
        .windows(2)
        .filter(|w| w[0] == "--cargo-tso")
        .map(|w| PathBuf::from(&w[1]))
        .collect();
    if !given.is_empty() {
        return given;
    }
    let beside = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(|d| d.join("cargo-tso")));
    match beside {
        Some(path) if path.exists() => vec![path],
        _ => {
            eprintln!("no cargo-tso binary beside tso-bench: build it (cargo build --release -p cargo-tso) or pass --cargo-tso PATH");
            std::process::exit(2);
        }
    }
}

/// `cargo-tso tso check FILE EXTRA...` with the cache in `cache`.
fn command(tool: &Path, file: &Path, extra: &[&str], cache: &Path) -> Command {
    let mut c = Command::new(tool);
    c.arg("tso")
        .arg("check")
        .arg(file)
        .args(extra)
        .env("CARGO_TSO_CACHE_DIR", cache);
    c
}

/// What one `cargo tso check` printed: verdict, states and the engine's seconds.
struct Outcome {
    verdict: String,
    states: Option<u64>,
    engine_secs: Option<f64>,
}

fn parse(stdout: &str) -> Outcome {
    let verdict = stdout
        .lines()
        .find_map(|l| l.strip_prefix("verdict: "))
        .map(|v| v.split([' ', '—']).next().unwrap_or("").to_owned())
        .unwrap_or_else(|| "?".to_owned());
    let figure = |name: &str| {
        stdout.lines().find_map(|l| {
            let at = l.find(name)?;
            let rest = &l[at + name.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(rest.len());
            Some(rest[..end].to_owned())
        })
    };
    Outcome {
        verdict,
        states: figure("states: ").and_then(|s| s.parse().ok()),
        engine_secs: figure("time: ").and_then(|s| s.parse().ok()),
    }
}

/// Compiles `file` into the cache (a run stopped at its first state), so the timed
/// and counted runs load cached bitcode like a user's second run.
fn warm(tool: &Path, file: &Path, cache: &Path) {
    let _ = command(tool, file, &["--max-states", "1"], cache).output();
}

fn table(tools: &[PathBuf], dir: &Path, programs: &[&str], cache: &Path) {
    for (i, t) in tools.iter().enumerate() {
        println!("build {i}: {}", t.display());
    }
    print!(
        "{:<20} {:>5} {:<8} {:>9} {:>9} {:>9} {:>9}",
        "program", "build", "verdict", "states", "engine", "wall", "cpu"
    );
    println!(
        "{}",
        if tools.len() > 1 {
            "  cpu ÷ build 0"
        } else {
            ""
        }
    );
    for p in programs {
        let file = dir.join(p);
        let mut first_cpu = None;
        for (i, tool) in tools.iter().enumerate() {
            // Each build has its own cache: an older build may compile differently.
            let cache = cache.join(i.to_string());
            warm(tool, &file, &cache);
            let start = Instant::now();
            let cpu_before = super::measure::children_cpu_time().as_secs_f64();
            let out = command(tool, &file, &[], &cache).output();
            let wall = start.elapsed().as_secs_f64();
            let cpu = super::measure::children_cpu_time().as_secs_f64() - cpu_before;
            let o = match out {
                Ok(out) => parse(&String::from_utf8_lossy(&out.stdout)),
                Err(e) => {
                    println!("{p:<20} {i:>5} cannot run: {e}");
                    continue;
                }
            };
            // CPU, not wall: on a shared machine the wall time follows the others' load.
            let ratio = match first_cpu {
                None => {
                    first_cpu = Some(cpu);
                    String::new()
                }
                Some(c) => format!("  {:.2}x", cpu / f64::max(c, 1e-9)),
            };
            println!(
                "{p:<20} {i:>5} {:<8} {:>9} {:>8.2}s {:>8.2}s {:>8.3}s{ratio}",
                o.verdict,
                o.states.map_or("-".into(), |s| s.to_string()),
                o.engine_secs.unwrap_or(f64::NAN),
                wall,
                cpu
            );
        }
    }
}

/// Instructions of one run of `tool` under callgrind (`Collected :` in its log).
fn instructions(tool: &Path, file: &Path, extra: &[&str], cache: &Path) -> Result<u64, String> {
    let cap = GUARD_STATES.to_string();
    let out = Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(tool)
        .arg("tso")
        .arg("check")
        .arg(file)
        .args(extra)
        .args(["--max-states", &cap])
        .env("CARGO_TSO_CACHE_DIR", cache)
        .output()
        .map_err(|e| format!("cannot run valgrind: {e}"))?;
    let log = String::from_utf8_lossy(&out.stderr);
    log.lines()
        .find_map(|l| l.split("Collected :").nth(1))
        .and_then(|n| n.trim().parse().ok())
        .ok_or_else(|| format!("no instruction count in valgrind's output:\n{log}"))
}

/// The baseline file: `program run count` lines; `#` starts a comment.
fn read_baseline(path: &Path) -> Result<BTreeMap<(String, String), u64>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut map = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        let count = match f.as_slice() {
            [_, _, count] => count.parse::<u64>().ok(),
            _ => None,
        };
        let Some(count) = count else {
            return Err(format!(
                "{}:{}: expected `program run count`",
                path.display(),
                n + 1
            ));
        };
        map.insert((f[0].to_owned(), f[1].to_owned()), count);
    }
    Ok(map)
}

fn guard(args: &[String], tool: &Path, dir: &Path, programs: &[&str], cache: &Path) -> i32 {
    let value = |name: &str| {
        args.windows(2)
            .find(|w| w[0] == name)
            .map(|w| PathBuf::from(&w[1]))
    };
    let baseline = match value("--baseline").map(|p| read_baseline(&p)).transpose() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    // Every (program, run) in its own callgrind process, two at a time.
    let jobs: Vec<(&str, &str, &[&str])> = programs
        .iter()
        .flat_map(|p| {
            GUARD_RUNS
                .iter()
                .map(move |(run, extra)| (*p, *run, *extra))
        })
        .collect();
    for p in programs {
        warm(tool, &dir.join(p), cache);
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(BTreeMap::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(p, run, extra)) = jobs.get(i) else {
                    break;
                };
                let count = instructions(tool, &dir.join(p), extra, cache);
                if let Ok(mut r) = results.lock() {
                    r.insert((p.to_owned(), run.to_owned()), count);
                }
            });
        }
    });
    let results = results.into_inner().unwrap_or_default();
    let mut status = 0;
    let mut lines = String::new();
    println!("instructions of `cargo tso check FILE [--memory-model sc] --max-states {GUARD_STATES}` under callgrind");
    println!(
        "{:<20} {:<9} {:>15} {:>15} {:>8}",
        "program", "run", "instructions", "baseline", "change"
    );
    for ((p, run), count) in &results {
        let count = match count {
            Ok(c) => *c,
            Err(e) => {
                println!("{p:<20} {run:<9} error: {e}");
                status = 2;
                continue;
            }
        };
        lines.push_str(&format!("{p} {run} {count}\n"));
        let Some(base) = &baseline else {
            println!("{p:<20} {run:<9} {count:>15}");
            continue;
        };
        let Some(&b) = base.get(&(p.clone(), run.clone())) else {
            println!("{p:<20} {run:<9} {count:>15} {:>15} no baseline", "-");
            status = status.max(1);
            continue;
        };
        let change = count as f64 / b.max(1) as f64 - 1.0;
        let note = if change > GUARD_TOLERANCE {
            status = status.max(1);
            "  SLOWER: over the 10% allowed"
        } else if change < -GUARD_TOLERANCE {
            "  faster: lower the baseline in a commit of its own"
        } else {
            ""
        };
        println!(
            "{p:<20} {run:<9} {count:>15} {b:>15} {:>+7.1}%{note}",
            change * 100.0
        );
    }
    if let Some(path) = value("--write-baseline") {
        let text = format!(
            "# Instructions of `cargo tso check FILE [--memory-model sc] --max-states {GUARD_STATES}` under\n\
             # callgrind, per program of `tso-bench --defaults` (scripts/perf-guard.sh).\n\
             # Raise a count only in a commit of its own that says why.\n{lines}"
        );
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("cannot write {}: {e}", path.display());
            return 2;
        }
    }
    if status == 1 {
        println!("instruction-count guard: FAILED (a count rose more than 10% over bench/instructions.baseline)");
    }
    status
}
