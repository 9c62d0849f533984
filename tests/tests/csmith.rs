//! The interpreter against the CPU: csmith programs compiled natively with
//! clang-19 at -O0 and -O2 print a checksum; `cargo tso check --show-output` must print
//! the same checksum under SC and under TSO, and report no error.
//!
//! Two profiles of generated programs: `small` (options that keep programs small and
//! quick, no packed structs) and `default` (csmith's own defaults: bit-fields, packed
//! structs, unions, pointers, volatiles), one test each. Seeds are fixed so CI is
//! deterministic. `TSO_CSMITH_COUNT` programs (default 200 small, 24 default) from seed
//! `TSO_CSMITH_SEED` (default 1); `TSO_CSMITH_JOBS` workers (default: all cores);
//! `TSO_CSMITH_KEEP=DIR` copies every disagreeing program there with a `.txt` beside it
//! (the csmith command line that made it and what disagreed); `TSO_CSMITH_SB_BOUND=N`
//! passes `--sb-bound N` to the TSO runs (default: the tool's default). One seed in
//! `WORKERS_EVERY` is also checked with `--jobs 1` against `--jobs 2`. Programs that time
//! out or crash natively are counted and skipped: that is a property of the generated
//! program, not of the checker. A check that ends inconclusive on a limit or is killed
//! did not finish: counted and listed, never an agreement, and too many fail the test.
//! `TSO_CSMITH_MINUTES=M` starts no new seed after M minutes (the report then covers the
//! seeds done); `TSO_CSMITH_VERBOSE=1` prints one line per seed as it ends.
//! `scripts/csmith-soak.sh N` runs thousands.

use tso_suite::binary as harness;

use harness::{check_command, run_limited, scratch};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tso_suite::check::{self, CheckResult};

const INSTALL: &str = "apt-get install -y csmith libcsmith-dev";
const CSMITH_INCLUDE: &str = "/usr/include/csmith";
/// Options that keep generated programs small and quick (no argc: main takes no arguments).
const SMALL_OPTIONS: &[&str] = &[
    "--no-argc",
    "--no-packed-struct",
    "--max-funcs",
    "3",
    "--max-block-depth",
    "3",
    "--max-array-dim",
    "2",
    "--max-array-len-per-dim",
    "5",
    "--max-expr-complexity",
    "5",
    "--max-struct-fields",
    "5",
    "--quiet",
    "--concise",
];
/// csmith's defaults; only main's signature and the comments differ.
const DEFAULT_OPTIONS: &[&str] = &["--no-argc", "--quiet", "--concise"];

/// A kind of generated program: its csmith options and how many seeds CI runs.
struct Profile {
    /// Names the profile's scratch directory: the two tests run side by side in one
    /// process and must not remove each other's files.
    name: &'static str,
    options: &'static [&'static str],
    default_count: u64,
}

const SMALL: Profile = Profile {
    name: "csmith-small",
    options: SMALL_OPTIONS,
    default_count: 200,
};
/// Default-option programs are larger; 24 keep the test near a minute on two cores.
const DEFAULT: Profile = Profile {
    name: "csmith-default",
    options: DEFAULT_OPTIONS,
    default_count: 24,
};
const OPT_LEVELS: [&str; 2] = ["-O0", "-O2"];
const MODELS: [&str; 2] = ["sc", "tso"];
/// Native runs longer than this are treated as non-terminating and skipped.
const NATIVE_LIMIT: Duration = Duration::from_secs(2);
/// The checker's own --timeout, and the wall limit past which it counts as hung.
const CHECK_TIMEOUT_SECS: &str = "20";
const CHECK_WALL: Duration = Duration::from_secs(60);
/// One seed in this many checks each program with one search worker and with two,
/// which must give the same verdict, checksum and number of stored states
/// (`TSO_WORKERS_ALL=1`: every seed); the others run on the tool's default workers.
const WORKERS_EVERY: usize = 4;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// What one native run of a program did.
enum Native {
    Checksum(String),
    TimedOut,
    /// Crashed or exited non-zero (undefined behaviour csmith let through, or a stack
    /// overflow of deep recursion).
    Crashed,
}

/// The result of one (seed, opt level): native behaviour and each model's answer.
#[derive(Default)]
struct Tally {
    programs: usize,
    native_timeouts: BTreeMap<&'static str, usize>,
    native_crashes: BTreeMap<&'static str, usize>,
    agree: BTreeMap<(&'static str, &'static str), usize>,
    disagreements: Vec<String>,
    /// Checks that ended on a limit (inconclusive) or were killed.
    unfinished: Vec<String>,
    /// Seeds with at least one unfinished check.
    unfinished_seeds: usize,
    /// Seeds with at least one check, every one agreeing.
    agreeing_seeds: usize,
    /// Checks also run with two search workers (and compared with one).
    worker_pairs: usize,
}

fn require_csmith() {
    let found = Command::new("csmith")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(found, "csmith is not installed; install it with: {INSTALL}");
    assert!(
        Path::new(CSMITH_INCLUDE).join("csmith.h").is_file(),
        "{CSMITH_INCLUDE}/csmith.h is missing; install it with: {INSTALL}"
    );
}

fn generate(options: &[&str], seed: u64, dir: &Path) -> Result<PathBuf, String> {
    let file = dir.join(format!("csmith_{seed}.c"));
    let out = Command::new("csmith")
        .args(options)
        .args(["--seed", &seed.to_string(), "--output"])
        .arg(&file)
        .output()
        .map_err(|e| format!("cannot run csmith: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "csmith --seed {seed} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(file)
}

fn run_native(source: &Path, opt: &str, dir: &Path) -> Result<Native, String> {
    let exe = dir.join(format!("native{opt}"));
    let out = Command::new("clang-19")
        .args(["-w", opt, "-I", CSMITH_INCLUDE, "-o"])
        .arg(&exe)
        .arg(source)
        .output()
        .map_err(|e| format!("cannot run clang-19: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "clang-19 {opt} failed on {}: {}",
            source.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let run_dir = dir.join(format!("run{opt}"));
    let _ = std::fs::create_dir_all(&run_dir);
    let run = run_limited(&mut Command::new(&exe), NATIVE_LIMIT, &run_dir);
    Ok(if run.timed_out {
        Native::TimedOut
    } else if run.code != Some(0) {
        Native::Crashed
    } else {
        match checksum_line(&run.stdout) {
            Some(line) => Native::Checksum(line),
            None => Native::Crashed,
        }
    })
}

fn checksum_line(output: &str) -> Option<String> {
    output
        .lines()
        .find(|l| l.starts_with("checksum = "))
        .map(|l| l.trim().to_string())
}

/// `cargo tso check` on the program, with `--jobs N` when `jobs` is given (else the
/// tool's default: every core).
fn run_checker(
    source: &Path,
    opt: &str,
    model: &str,
    jobs: Option<usize>,
    dir: &Path,
) -> CheckResult {
    let file = source.display().to_string();
    let mut args = vec![
        file.as_str(),
        "--memory-model",
        model,
        "--show-output",
        "--format",
        "json",
        "--timeout",
        CHECK_TIMEOUT_SECS,
    ];
    let bound = std::env::var("TSO_CSMITH_SB_BOUND").unwrap_or_default();
    if model == "tso" && !bound.trim().is_empty() {
        args.extend(["--sb-bound", bound.trim()]);
    }
    let jobs = jobs.map(|j| j.to_string());
    if let Some(j) = &jobs {
        args.extend(["--jobs", j]);
    }
    args.extend(["--", opt, "-I", CSMITH_INCLUDE, "-w"]);
    let mut cmd = check_command(&args, dir);
    let run = run_limited(&mut cmd, CHECK_WALL, dir);
    CheckResult::from_run(format!("cargo tso check {}", args.join(" ")), run)
}

/// How one check compared with the native run.
enum Judged {
    Agrees,
    /// Inconclusive on a limit, or killed: no answer to compare.
    Unfinished(String),
    Disagrees(String),
}

/// Whether the checker agrees with the native checksum, else what went wrong.
fn judge(run: &CheckResult, expected: &str) -> Judged {
    match judge_answer(run, expected) {
        None => Judged::Agrees,
        Some(problem)
            if run.timed_out
                || run
                    .json
                    .as_ref()
                    .is_some_and(|j| j["verdict"] == "inconclusive") =>
        {
            Judged::Unfinished(problem)
        }
        Some(problem) => Judged::Disagrees(problem),
    }
}

/// `None` when the checker agrees with the native checksum, else what went wrong.
fn judge_answer(run: &CheckResult, expected: &str) -> Option<String> {
    if run.timed_out {
        return Some(format!("hung (killed after {:?})", run.wall));
    }
    let Some(json) = &run.json else {
        return Some(format!(
            "exit {:?}, no JSON answer: {}",
            run.exit,
            format!("{}{}", run.stdout, run.stderr)
                .chars()
                .take(400)
                .collect::<String>()
        ));
    };
    let verdict = json["verdict"].as_str().unwrap_or("?");
    let got = json["output"].as_str().and_then(checksum_line);
    if run.exit == Some(0) && verdict == "pass" && got.as_deref() == Some(expected) {
        return None;
    }
    Some(format!(
        "exit {:?}, verdict {verdict}, error {}, inconclusive {}, checksum {:?} (native {expected:?})",
        run.exit, json["error"], json["inconclusive_reason"], got
    ))
}

/// The program checked under `model`, judged against the native checksum; for the
/// sampled seeds with one and with two search workers, each judged, and agreeing on
/// the verdict and the number of stored states.
fn check_model(
    seed: u64,
    source: &Path,
    opt: &str,
    model: &str,
    expected: &str,
    dir: &Path,
) -> Judged {
    if !check::compare_workers(seed as usize, WORKERS_EVERY) {
        return judge(&run_checker(source, opt, model, None, dir), expected);
    }
    let prefixed = |j: Judged, p: &str| match j {
        Judged::Agrees => Judged::Agrees,
        Judged::Unfinished(s) => Judged::Unfinished(format!("{p}: {s}")),
        Judged::Disagrees(s) => Judged::Disagrees(format!("{p}: {s}")),
    };
    let one = run_checker(source, opt, model, Some(1), dir);
    match prefixed(judge(&one, expected), "-j 1") {
        Judged::Agrees => {}
        other => return other,
    }
    let two = run_checker(source, opt, model, Some(2), dir);
    match prefixed(judge(&two, expected), "-j 2") {
        Judged::Agrees => {}
        other => return other,
    }
    match check::worker_difference(&one, &two) {
        None => Judged::Agrees,
        Some(d) => Judged::Disagrees(d),
    }
}

fn check_seed(options: &[&str], seed: u64, root: &Path, tally: &Mutex<Tally>) {
    let dir = root.join(seed.to_string());
    let _ = std::fs::create_dir_all(&dir);
    let mut problems = Vec::new();
    let mut unfinished = false;
    let mut compared = false;
    let source = match generate(options, seed, &dir) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    for opt in OPT_LEVELS {
        let native = match run_native(&source, opt, &dir) {
            Ok(n) => n,
            Err(e) => panic!("{e}"),
        };
        let expected = match native {
            Native::Checksum(c) => c,
            Native::TimedOut => {
                *lock(tally).native_timeouts.entry(opt).or_default() += 1;
                continue;
            }
            Native::Crashed => {
                *lock(tally).native_crashes.entry(opt).or_default() += 1;
                continue;
            }
        };
        for model in MODELS {
            let check_dir = dir.join(format!("check{opt}-{model}"));
            let _ = std::fs::create_dir_all(&check_dir);
            if check::compare_workers(seed as usize, WORKERS_EVERY) {
                lock(tally).worker_pairs += 1;
            }
            compared = true;
            match check_model(seed, &source, opt, model, &expected, &check_dir) {
                Judged::Agrees => *lock(tally).agree.entry((opt, model)).or_default() += 1,
                Judged::Unfinished(why) => {
                    unfinished = true;
                    lock(tally)
                        .unfinished
                        .push(format!("seed {seed} {opt} {model}: {why}"));
                }
                Judged::Disagrees(problem) => {
                    let line = format!("seed {seed} {opt} {model}: {problem}");
                    problems.push(line.clone());
                    lock(tally).disagreements.push(line);
                }
            }
        }
    }
    if !problems.is_empty() {
        keep(&source, options, seed, &problems);
    }
    if std::env::var_os("TSO_CSMITH_VERBOSE").is_some() {
        let outcome = if !problems.is_empty() {
            "disagrees"
        } else if unfinished {
            "unfinished"
        } else if compared {
            "agrees"
        } else {
            "not comparable (native timeout or crash)"
        };
        println!("csmith seed {seed}: {outcome}");
    }
    let mut t = lock(tally);
    t.programs += 1;
    t.unfinished_seeds += unfinished as usize;
    t.agreeing_seeds += (compared && !unfinished && problems.is_empty()) as usize;
    drop(t);
    let _ = std::fs::remove_dir_all(&dir);
}

fn lock(tally: &Mutex<Tally>) -> std::sync::MutexGuard<'_, Tally> {
    tally.lock().unwrap_or_else(|p| p.into_inner())
}

/// Copies a disagreeing program to `TSO_CSMITH_KEEP` for minimisation, with the
/// csmith command line that regenerates it and what disagreed.
fn keep(source: &Path, options: &[&str], seed: u64, problems: &[String]) {
    if let (Some(dir), Some(name)) = (std::env::var_os("TSO_CSMITH_KEEP"), source.file_name()) {
        let dir = PathBuf::from(dir);
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::copy(source, dir.join(name));
        let note = format!(
            "csmith {} --seed {seed}\n{}\n",
            options.join(" "),
            problems.join("\n")
        );
        let _ = std::fs::write(dir.join(format!("csmith_{seed}.txt")), note);
    }
}

#[test]
fn csmith_checksums_match_native_execution() {
    run_profile(&SMALL);
}

/// csmith's defaults: bit-fields, packed structs (clang stores their bit-fields as one
/// integer of odd width, e.g. `i168`), unions.
#[test]
fn csmith_default_options_match_native_execution() {
    run_profile(&DEFAULT);
}

fn run_profile(profile: &Profile) {
    require_csmith();
    let count = env_number("TSO_CSMITH_COUNT", profile.default_count);
    let first = env_number("TSO_CSMITH_SEED", 1);
    let default_jobs = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2) as u64;
    let jobs = env_number("TSO_CSMITH_JOBS", default_jobs).max(1) as usize;
    // Build (or locate) the binary once before the workers start.
    let _ = harness::cargo_tso();
    let root = scratch(profile.name);
    let tally = Mutex::new(Tally::default());
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    let minutes = env_number("TSO_CSMITH_MINUTES", 0);
    let time_up = || minutes > 0 && start.elapsed() > Duration::from_secs(minutes * 60);
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                if time_up() {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed) as u64;
                if i >= count {
                    break;
                }
                check_seed(profile.options, first + i, &root, &tally);
            });
        }
    });
    let _ = std::fs::remove_dir_all(&root);
    let tally = tally.into_inner().unwrap_or_else(|p| p.into_inner());
    let stopped = time_up() && (tally.programs as u64) < count;
    let mut report = format!(
        "csmith: seeds {first}..{} ({} programs, csmith {}) in {:.0?}\n",
        first + count - 1,
        tally.programs,
        profile.options.join(" "),
        start.elapsed()
    );
    for opt in OPT_LEVELS {
        let compared = tally
            .agree
            .iter()
            .filter(|((o, _), _)| *o == opt)
            .map(|(_, n)| *n)
            .sum::<usize>();
        report += &format!(
            "  {opt}: native timeouts {}, native crashes {}, agree sc {}, agree tso {} ({compared} checks agree)\n",
            tally.native_timeouts.get(opt).unwrap_or(&0),
            tally.native_crashes.get(opt).unwrap_or(&0),
            tally.agree.get(&(opt, "sc")).unwrap_or(&0),
            tally.agree.get(&(opt, "tso")).unwrap_or(&0),
        );
    }
    if stopped {
        report += &format!(
            "  stopped after {minutes} minutes: {} of {count} seeds done\n",
            tally.programs
        );
    }
    report += &format!(
        "  checks also run with two search workers: {}\n",
        tally.worker_pairs
    );
    report += &format!(
        "  seeds with every check agreeing: {}\n",
        tally.agreeing_seeds
    );
    report += &format!(
        "  unfinished checks: {} (in {} seeds)\n",
        tally.unfinished.len(),
        tally.unfinished_seeds
    );
    for u in &tally.unfinished {
        report += &format!("    {u}\n");
    }
    report += &format!(
        "  disagreements: {} (in {} seeds)\n",
        tally.disagreements.len(),
        disagreeing_seeds(&tally.disagreements)
    );
    for d in &tally.disagreements {
        report += &format!("    {d}\n");
    }
    println!("{report}");
    let done = if stopped {
        tally.programs as u64
    } else {
        count
    };
    assert_eq!(
        tally.programs as u64, done,
        "not every program was checked\n{report}"
    );
    let checked: usize = tally.agree.values().sum::<usize>() + tally.disagreements.len();
    assert!(
        checked as u64 >= done,
        "too few programs ran natively to compare (most timed out or crashed)\n{report}"
    );
    assert!(
        tally.disagreements.is_empty(),
        "the checker disagrees with native execution\n{report}"
    );
    assert!(
        tally.unfinished.len() * 10 <= checked,
        "more than one check in ten did not finish\n{report}"
    );
}

/// How many distinct seeds the disagreement lines (`seed N ...`) name.
fn disagreeing_seeds(lines: &[String]) -> usize {
    lines
        .iter()
        .filter_map(|l| l.split_whitespace().nth(1))
        .collect::<std::collections::BTreeSet<_>>()
        .len()
}
