//! `cargo run --release -p tso-bench [-- --quick] [-- PROGRAM...]`
//! `cargo run --release -p tso-bench -- --scale [--jobs N] [--max-states N] [PROGRAM...]`
//! `cargo run --release -p tso-bench -- --definedness [PROGRAM...]`
//! `cargo run --release -p tso-bench -- --por [PROGRAM...]`
//! `cargo run --release -p tso-bench -- --defaults [--cargo-tso PATH]... [PROGRAM...]`
//! `cargo run --release -p tso-bench -- --defaults --instructions [--baseline FILE] [--write-baseline FILE]`
//! `cargo run --release -p tso-bench -- --help`: the usage; an unknown switch exits 2.
//!
//! Runs the fixed benchmark programs (`bench/programs/` and the corpus's mutual-exclusion
//! programs, see [`CORPUS_ITERS`]) under SC and under TSO
//! (delayed flushing and the reference machine, with each optimisation switched off,
//! at several store-buffer bounds) and prints one table row per run: verdict, states,
//! transitions, wall time, states/s, stored bytes/state, peak memory, and for the
//! single-threaded program interpreted instructions/s.
//!
//! `--races` runs only the mutual-exclusion programs and `treiber3_c11` (the Treiber
//! stack written race-free in C11) under SC without and with data-race tracking
//! (`sc+races`, what `--races warn` adds) and under TSO (bound 32), and the first
//! 200,000 states of `treiber4` (racy) without and with it; a `races cost` line per
//! program gives the time, states and bytes/state with tracking against without.
//!
//! `--symmetry` runs the many-thread programs and the mutual-exclusion set under TSO
//! (bound 32) with and without thread symmetry, each capped at 300,000 states.
//!
//! `--defaults` runs each program of its set as `cargo tso check FILE` with no switches
//! (what users run), and under callgrind with `--instructions` (`defaults.rs`).
//!
//! `--scale` runs the larger programs (4-thread lock-free stack and locks, unbounded
//! counters), each in a process of its own so its peak memory is its own, with 1 and
//! N workers, and prints states/s per worker and in total and the speedup. With N > 1
//! it first prints the machine's ceiling for that speedup: N single-worker copies of
//! one check run side by side against one alone (`--no-ceiling` skips it).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use tso_engine::{check, CheckOptions, Limits, Natives};
use tso_runtime::instrument::{instrument_module, InstrumentOptions};
use tso_runtime::runtime::{self, RuntimeOptions};

// The allocator cargo-tso uses (its `memory_use` wraps the same one), so the figures are
// the tool's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// One way of checking a program.
#[derive(Clone)]
struct Config {
    name: &'static str,
    tso: bool,
    reference: bool,
    static_locals: bool,
    dynamic_bypass: bool,
    /// Track data races (`--races warn`); off everywhere else (`--races allow`).
    races: bool,
    /// Store states up to a permutation of threads (the default; off: `--no-symmetry`).
    symmetry: bool,
}

const SC: Config = Config {
    name: "sc",
    tso: false,
    reference: false,
    static_locals: true,
    dynamic_bypass: true,
    races: false,
    symmetry: true,
};
const TSO: Config = Config {
    name: "tso",
    tso: true,
    reference: false,
    static_locals: true,
    dynamic_bypass: true,
    races: false,
    symmetry: true,
};
const TSO_REF: Config = Config {
    name: "tso-reference",
    tso: true,
    reference: true,
    static_locals: true,
    dynamic_bypass: true,
    races: false,
    symmetry: true,
};
const TSO_NO_S: Config = Config {
    name: "tso-no-static",
    tso: true,
    reference: false,
    static_locals: false,
    dynamic_bypass: true,
    races: false,
    symmetry: true,
};
const TSO_NO_D: Config = Config {
    name: "tso-no-dynamic",
    tso: true,
    reference: false,
    static_locals: true,
    dynamic_bypass: false,
    races: false,
    symmetry: true,
};
const TSO_BASE: Config = Config {
    name: "tso-base",
    tso: true,
    reference: false,
    static_locals: false,
    dynamic_bypass: false,
    races: false,
    symmetry: true,
};

/// SC with data-race tracking: what `--races warn` (the default of `cargo tso`) adds,
/// under SC directly and under TSO as the SC run that looks for races first.
const SC_RACES: Config = Config {
    name: "sc+races",
    tso: false,
    reference: false,
    static_locals: true,
    dynamic_bypass: true,
    races: true,
    symmetry: true,
};

const MUTEX_PROGRAMS: &[&str] = &[
    "peterson",
    "dekker",
    "bakery",
    "szymanski",
    "mutex3",
    "indexer",
];
const TSO_PROGRAMS: &[&str] = &[
    "peterson",
    "dekker",
    "bakery",
    "szymanski",
    "peterson_fenced",
    "dekker_fenced",
    "bakery_fenced",
    "szymanski_fenced",
    "mutex3",
    "indexer",
];
const BOUNDS: &[u32] = &[1, 4, 32, 0];

/// TSO without thread symmetry (`--no-symmetry`).
const TSO_NO_SYM: Config = Config {
    name: "tso-no-symmetry",
    symmetry: false,
    ..TSO
};

/// `--symmetry`: the programs of the state-space reduction issue (as written, their
/// workers are told apart by the handles `main` keeps and joins in order), their
/// `_detached` variants (workers `main` does not keep handles to: interchangeable), and
/// the mutual-exclusion set.
const SYMMETRY_PROGRAMS: &[&str] = &[
    "mpmc3x3",
    "mpmc3x3_detached",
    "ticket4x2",
    "ticket4x2_detached",
    "mcs4",
    "mcs4_detached",
    "treiber4",
    "mutex3",
    "peterson_fenced",
    "dekker_fenced",
    "bakery_fenced",
    "szymanski_fenced",
    "indexer",
];
const SYMMETRY_STATES: u64 = 300_000;

/// The mutual-exclusion programs are the verdict corpus's (`tests/programs/mutex/`), built
/// with more critical-section entries per thread (`-DITERS=N`) than the corpus's one.
const CORPUS_ITERS: &[(&str, u32)] = &[
    ("peterson", 4),
    ("dekker", 4),
    ("bakery", 3),
    ("szymanski", 4),
    ("peterson_fenced", 4),
    ("dekker_fenced", 4),
    ("bakery_fenced", 3),
    ("szymanski_fenced", 4),
];

/// The source of `program` and the defines it is built with.
fn source(dir: &Path, program: &str) -> (PathBuf, Vec<String>) {
    match CORPUS_ITERS.iter().find(|(p, _)| *p == program) {
        Some((_, iters)) => (
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../tests/programs/mutex")
                .join(format!("{program}.c")),
            vec![format!("-DITERS={iters}")],
        ),
        None => (dir.join(format!("{program}.c")), Vec::new()),
    }
}

const USAGE: &str = "\
usage: tso-bench [--quick] [PROGRAM...]          the SC/TSO table (every configuration and bound)
       tso-bench --races [PROGRAM...]            race tracking's cost under SC, and the TSO run
       tso-bench --symmetry [PROGRAM...]         TSO with and without thread symmetry
       tso-bench --scale [--jobs N] [--max-states N] [--no-ceiling] [--contention] [PROGRAM...]
       tso-bench --por [PROGRAM...]              partial-order reduction and symmetry, on and off
       tso-bench --definedness [PROGRAM...]      the cost of tracking undefined bits
       tso-bench --defaults [--cargo-tso PATH]... [PROGRAM...]
                                                 `cargo tso check FILE` as users run it
       tso-bench --defaults --instructions [--cargo-tso PATH] [--baseline FILE] [--write-baseline FILE]
                                                 instruction counts under callgrind (the guard)
       tso-bench --help                          this text
";

/// Every switch a mode reads, and those of them that take the next argument as value.
const SWITCHES: &[&str] = &[
    "--quick",
    "--races",
    "--symmetry",
    "--scale",
    "--jobs",
    "--max-states",
    "--no-ceiling",
    "--contention",
    "--por",
    "--definedness",
    "--defaults",
    "--cargo-tso",
    "--instructions",
    "--baseline",
    "--write-baseline",
];
const VALUED: &[&str] = &[
    "--jobs",
    "--max-states",
    "--cargo-tso",
    "--baseline",
    "--write-baseline",
];

/// Refuse what no mode reads: `--help` prints the usage (exit 0); an unknown switch or
/// a switch without its value is an error (exit 2).
fn check_switches(args: &[String]) {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        print!("{USAGE}");
        std::process::exit(0);
    }
    let mut args = args.iter();
    while let Some(a) = args.next() {
        if !a.starts_with('-') {
            continue;
        }
        if !SWITCHES.contains(&a.as_str()) {
            eprintln!("tso-bench: unknown switch `{a}`\n\n{USAGE}");
            std::process::exit(2);
        }
        if VALUED.contains(&a.as_str()) && args.next().is_none() {
            eprintln!("tso-bench: `{a}` needs a value\n\n{USAGE}");
            std::process::exit(2);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "--one") {
        // A child run of `--scale` or `--por`, made by this benchmark itself.
        return scale::run_one(&args[1..]);
    }
    check_switches(&args);
    if args.iter().any(|a| a == "--scale") {
        return scale::run_all(&args);
    }
    if args.iter().any(|a| a == "--por") {
        return por::run_all(&args);
    }
    if args.iter().any(|a| a == "--defaults") {
        return defaults::run_all(&args);
    }
    if args.iter().any(|a| a == "--definedness") {
        return definedness::run_all(&args);
    }
    let quick = args.iter().any(|a| a == "--quick");
    // `--races`: only the cost of race tracking on the mutual-exclusion programs (SC
    // without and with tracking, and the TSO run it comes before).
    let races_only = args.iter().any(|a| a == "--races");
    let only: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("programs");
    let out = std::env::temp_dir().join(format!("tso-bench-{}", std::process::id()));
    if std::fs::create_dir_all(&out).is_err() {
        eprintln!("cannot create {}", out.display());
        std::process::exit(2);
    }
    let wanted = |p: &str| only.is_empty() || only.iter().any(|o| o.as_str() == p);
    println!(
        "{:<18} {:<15} {:>5} {:<13} {:>9} {:>10} {:>9} {:>10} {:>8} {:>9} {:>10}",
        "program",
        "config",
        "bound",
        "verdict",
        "states",
        "transitions",
        "time",
        "states/s",
        "B/state",
        "peak mem",
        "instr/s"
    );
    if args.iter().any(|a| a == "--symmetry") {
        for p in SYMMETRY_PROGRAMS.iter().filter(|p| wanted(p)) {
            run_capped(&dir, &out, p, &TSO, 32, SYMMETRY_STATES);
            run_capped(&dir, &out, p, &TSO_NO_SYM, 32, SYMMETRY_STATES);
        }
        let _ = std::fs::remove_dir_all(&out);
        return;
    }
    if races_only {
        for p in MUTEX_PROGRAMS
            .iter()
            .chain(&["treiber3_c11"])
            .filter(|p| wanted(p))
        {
            let without = run(&dir, &out, p, &SC, 32);
            let with = run(&dir, &out, p, &SC_RACES, 32);
            run(&dir, &out, p, &TSO, 32);
            print_race_cost(p, without, with);
        }
        // The Treiber stack's state space is too large to finish: the same number of
        // states with and without tracking, and the time they take.
        if wanted("treiber4") {
            let without = run_capped(&dir, &out, "treiber4", &SC, 32, RACES_TREIBER_STATES);
            let with = run_capped(&dir, &out, "treiber4", &SC_RACES, 32, RACES_TREIBER_STATES);
            print_race_cost("treiber4", without, with);
        }
        let _ = std::fs::remove_dir_all(&out);
        return;
    }
    // Single-threaded interpreter throughput.
    if wanted("compute") {
        run(&dir, &out, "compute", &SC, 32);
    }
    // SC: the mutual-exclusion programs.
    for p in MUTEX_PROGRAMS.iter().filter(|p| wanted(p)) {
        run(&dir, &out, p, &SC, 32);
    }
    // TSO: every configuration at every bound.
    let configs: &[&Config] = if quick {
        &[&TSO, &TSO_REF]
    } else {
        &[&TSO, &TSO_REF, &TSO_NO_S, &TSO_NO_D, &TSO_BASE]
    };
    let bounds: &[u32] = if quick { &[32] } else { BOUNDS };
    for p in TSO_PROGRAMS.iter().filter(|p| wanted(p)) {
        for c in configs {
            for &b in bounds {
                run(&dir, &out, p, c, b);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}

mod defaults;
mod definedness;
mod measure;
mod por;
mod scale;

fn compile(src: &Path, defines: &[String], out: &Path) -> Result<PathBuf, String> {
    let bc = out
        .join(src.file_stem().unwrap_or_default())
        .with_extension("bc");
    let status = Command::new("clang-19")
        .args(["-c", "-emit-llvm", "-g", "-O0", "-o"])
        .arg(&bc)
        .args(defines)
        .arg(src)
        .status()
        .map_err(|e| format!("cannot run clang-19: {e}"))?;
    if !status.success() {
        return Err(format!("clang-19 failed on {}", src.display()));
    }
    Ok(bc)
}

/// The program compiled, instrumented for `cfg` and translated, with its natives.
fn prepare(
    dir: &Path,
    out: &Path,
    program: &str,
    cfg: &Config,
    bound: u32,
) -> Result<(tso_engine::Program, Natives), String> {
    let (src, defines) = source(dir, program);
    let bc = compile(&src, &defines, out)?;
    let ctx = inkwell::context::Context::create();
    let module = tso_engine::parse_module(&ctx, &bc).map_err(|e| e.to_string())?;
    let mut natives = Natives::standard();
    if cfg.tso {
        instrument_module(
            &module,
            &InstrumentOptions {
                static_locals: cfg.static_locals,
                ..InstrumentOptions::default()
            },
        )
        .map_err(|e| e.to_string())?;
        runtime::register(
            &mut natives,
            &RuntimeOptions {
                sb_bound: bound,
                dynamic_bypass: cfg.dynamic_bypass,
                reference_machine: cfg.reference,
                ..RuntimeOptions::default()
            },
        );
    }
    Ok((tso_engine::translate(&module), natives))
}

/// How many states `--races` explores of `treiber4` with and without tracking.
const RACES_TREIBER_STATES: u64 = 200_000;

fn run(dir: &Path, out: &Path, program: &str, cfg: &Config, bound: u32) -> Option<Row> {
    run_capped(dir, out, program, cfg, bound, 5_000_000)
}

/// What a row reports that `--races` compares: seconds, states and stored bytes/state.
#[derive(Clone, Copy)]
struct Row {
    secs: f64,
    states: u64,
    bytes_per_state: f64,
}

/// `--races`: race tracking's cost on one program, `with` against `without`.
fn print_race_cost(program: &str, without: Option<Row>, with: Option<Row>) {
    if let (Some(a), Some(b)) = (without, with) {
        println!(
            "{program:<18} {:<15} time {:.2}x, states {:.2}x, B/state {:.0} -> {:.0} ({:.2}x)",
            "races cost",
            b.secs / a.secs,
            b.states as f64 / a.states.max(1) as f64,
            a.bytes_per_state,
            b.bytes_per_state,
            b.bytes_per_state / a.bytes_per_state.max(1e-9)
        );
    }
}

fn run_capped(
    dir: &Path,
    out: &Path,
    program: &str,
    cfg: &Config,
    bound: u32,
    max_states: u64,
) -> Option<Row> {
    let (prog, natives) = match prepare(dir, out, program, cfg, bound) {
        Ok(p) => p,
        Err(e) => {
            println!("{program:<18} {:<15} {bound:>5} error: {e}", cfg.name);
            return None;
        }
    };
    tso_engine::resources::reset_peak_rss();
    let mut opts = CheckOptions {
        limits: Limits {
            max_states: Some(max_states),
            timeout: Some(Duration::from_secs(120)),
            max_memory: Some(16 << 30),
            deadline: None,
            stop: None,
        },
        ..CheckOptions::default()
    };
    if cfg.races {
        opts.machine.races = tso_engine::RacePolicy::Warn;
    }
    opts.machine.symmetry = cfg.symmetry;
    let r = check(&prog, &natives, &opts);
    let s = &r.stats;
    let secs = s.time.as_secs_f64().max(1e-9);
    let verdict = measure::verdict_text(&r, " ");
    let instr = if program == "compute" {
        format!("{:.1}M", s.instructions as f64 / secs / 1e6)
    } else {
        "-".into()
    };
    let bound_s = if cfg.tso {
        bound.to_string()
    } else {
        "-".into()
    };
    println!(
        "{program:<18} {:<15} {bound_s:>5} {verdict:<13} {:>9} {:>10} {:>8.3}s {:>10.0} {:>8.0} {:>9} {:>10}",
        cfg.name,
        s.states,
        s.transitions,
        secs,
        s.states as f64 / secs,
        s.stored_bytes as f64 / s.states.max(1) as f64,
        tso_engine::resources::format_bytes(s.peak_rss),
        instr
    );
    Some(Row {
        secs,
        states: s.states,
        bytes_per_state: s.stored_bytes as f64 / s.states.max(1) as f64,
    })
}
