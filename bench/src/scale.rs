//! The scaling benchmark: programs whose state spaces reach millions of states, each run
//! in a child process (so its peak resident memory is its own) with 1 and N workers.

use super::measure::{cpu_time, verdict_text};
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use tso_engine::{check, CheckOptions, Limits, Natives};
use tso_runtime::instrument::{instrument_module, InstrumentOptions};
use tso_runtime::runtime::{self, RuntimeOptions};

/// One row of the scaling table: a program, its memory model and bound, and the
/// state limit that stops the unbounded ones.
struct ScaleRun {
    program: &'static str,
    tso: bool,
    bound: u32,
    max_states: Option<u64>,
}

const RUNS: &[ScaleRun] = &[
    ScaleRun {
        program: "treiber4",
        tso: true,
        bound: 32,
        max_states: None,
    },
    ScaleRun {
        program: "filter4",
        tso: true,
        bound: 32,
        max_states: None,
    },
    ScaleRun {
        program: "ticket4x2",
        tso: true,
        bound: 32,
        max_states: None,
    },
    ScaleRun {
        program: "counters2",
        tso: false,
        bound: 32,
        max_states: Some(3_000_000),
    },
    ScaleRun {
        program: "shared_counter",
        tso: true,
        bound: 0,
        max_states: Some(20_000),
    },
    ScaleRun {
        program: "peterson_fenced",
        tso: true,
        bound: 32,
        max_states: None,
    },
    ScaleRun {
        program: "mutex3",
        tso: false,
        bound: 32,
        max_states: None,
    },
    ScaleRun {
        program: "mcs4",
        tso: true,
        bound: 32,
        max_states: None,
    },
    ScaleRun {
        program: "wsdeque3",
        tso: true,
        bound: 32,
        max_states: None,
    },
    // Millions of states without a partial-order reduction: capped.
    ScaleRun {
        program: "mpmc3x3",
        tso: true,
        bound: 32,
        max_states: Some(1_000_000),
    },
];

fn flag_value(args: &[String], flag: &str) -> Option<u64> {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
}

/// Run every scaling program with 1 worker and with `--jobs N` (default: all cores).
pub fn run_all(args: &[String]) {
    let jobs = flag_value(args, "--jobs")
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u64));
    let cap = flag_value(args, "--max-states");
    // `--contention`: each row's lock figures per table of the store too.
    let contention = args.iter().any(|a| a == "--contention");
    let only: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| {
            let is_value = *i > 0 && matches!(args[i - 1].as_str(), "--jobs" | "--max-states");
            !a.starts_with("--") && !is_value
        })
        .map(|(_, a)| a)
        .collect();
    let Ok(exe) = std::env::current_exe() else {
        eprintln!("cannot find the benchmark's own executable");
        std::process::exit(2);
    };
    if jobs > 1 && !args.iter().any(|a| a == "--no-ceiling") {
        print_machine_ceiling(&exe, jobs);
    }
    println!(
        "{:<16} {:<4} {:>5} {:>4} {:<13} {:>9} {:>8} {:>10} {:>10} {:>8} {:>9} {:>8} {:>8} {:>8} {:>8}",
        "program",
        "mm",
        "bound",
        "jobs",
        "verdict",
        "states",
        "time",
        "states/s",
        "per worker",
        "B/state",
        "peak RSS",
        "speedup",
        "locks/st",
        "waits/st",
        "st/level"
    );
    for r in RUNS
        .iter()
        .filter(|r| only.is_empty() || only.iter().any(|o| o.as_str() == r.program))
    {
        let max = match (r.max_states, cap) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let mut one_worker_time = None;
        let mut counts = Vec::new();
        let worker_counts: Vec<u64> = if jobs > 1 { vec![1, jobs] } else { vec![1] };
        for j in worker_counts {
            let out = Command::new(&exe)
                .arg("--one")
                .arg(r.program)
                .arg(if r.tso { "tso" } else { "sc" })
                .arg(r.bound.to_string())
                .arg(max.map_or("0".into(), |m| m.to_string()))
                .arg(j.to_string())
                .output();
            let line = match out {
                Ok(o) => String::from_utf8_lossy(&o.stdout).trim().to_string(),
                Err(e) => format!("error: {e}"),
            };
            // The child prints: verdict states seconds stored_bytes peak_rss lock_waits
            // cpu_seconds transitions lock_acquisitions depth, then (acquisitions,
            // waits) of the chunk, node and state tables.
            let f: Vec<&str> = line.split_whitespace().collect();
            let (Some(verdict), Some(states), Some(secs), Some(bytes), Some(rss)) = (
                f.first(),
                f.get(1).and_then(|v| v.parse::<u64>().ok()),
                f.get(2).and_then(|v| v.parse::<f64>().ok()),
                f.get(3).and_then(|v| v.parse::<u64>().ok()),
                f.get(4).and_then(|v| v.parse::<u64>().ok()),
            ) else {
                println!("{:<16} failed: {line}", r.program);
                continue;
            };
            let secs = secs.max(1e-9);
            if j == 1 {
                one_worker_time = Some(secs);
            }
            counts.push(states);
            let speedup = one_worker_time.map_or("-".into(), |t| format!("{:.2}x", t / secs));
            // Contention on the shared store, per stored state: shard locks taken, and
            // times a worker found one taken by another. Breadth-first (several
            // workers): stored states per level, each level ending at a barrier.
            let num = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
            let per_state = |n: u64| n as f64 / states.max(1) as f64;
            let per_level = if j > 1 {
                format!("{:.0}", states as f64 / num(9).max(1) as f64)
            } else {
                "-".into()
            };
            println!(
                "{:<16} {:<4} {:>5} {:>4} {:<13} {:>9} {:>7.2}s {:>10.0} {:>10.0} {:>8.0} {:>9} {:>8} {:>8.1} {:>8.3} {:>8}",
                r.program,
                if r.tso { "tso" } else { "sc" },
                if r.tso { r.bound.to_string() } else { "-".into() },
                j,
                verdict,
                states,
                secs,
                states as f64 / secs,
                states as f64 / secs / j as f64,
                bytes as f64 / states.max(1) as f64,
                tso_engine::resources::format_bytes(rss),
                speedup,
                per_state(num(8)),
                per_state(num(5)),
                per_level
            );
            if contention {
                println!(
                    "{:<16} per state: chunks {:.1} locks {:.3} waits, nodes {:.1} / {:.3}, states {:.1} / {:.3}",
                    "",
                    per_state(num(10)),
                    per_state(num(11)),
                    per_state(num(12)),
                    per_state(num(13)),
                    per_state(num(14)),
                    per_state(num(15)),
                );
            }
        }
        if counts.windows(2).any(|w| w[0] != w[1]) && max.is_none() {
            println!(
                "{:<16} STATE COUNTS DIFFER between worker counts: {counts:?}",
                r.program
            );
        }
    }
}

/// The workload of the machine-ceiling measurement: one worker, depth-first, on the
/// Treiber stack, stopped at a fixed state count (a few seconds).
const CEILING_RUN: [&str; 6] = ["--one", "treiber4", "tso", "32", "100000", "1"];

/// Prints how much throughput the machine gives `jobs` independent single-worker
/// checks started together, against one alone: the ceiling of the speedup column.
/// Virtual cores can share a physical core or its memory bandwidth, so on some
/// machines no parallel search can reach `jobs`× (measured here: two copies side by
/// side each ran 1.45× slower than one alone).
fn print_machine_ceiling(exe: &Path, jobs: u64) {
    let timed = |copies: u64| -> Option<f64> {
        let start = std::time::Instant::now();
        let children: Vec<_> = (0..copies)
            .map(|_| {
                Command::new(exe)
                    .args(CEILING_RUN)
                    .stdout(std::process::Stdio::null())
                    .spawn()
            })
            .collect::<Result<_, _>>()
            .ok()?;
        for mut c in children {
            c.wait().ok()?.success().then_some(())?;
        }
        Some(start.elapsed().as_secs_f64())
    };
    match (timed(1), timed(jobs)) {
        (Some(alone), Some(together)) => println!(
            "machine ceiling: {jobs} single-worker copies of `{}` side by side ran at {:.2}x \
             the throughput of one alone ({alone:.2} s alone, {together:.2} s together; ideal {jobs}.00x)",
            CEILING_RUN[1..].join(" "),
            jobs as f64 * alone / together.max(1e-9),
        ),
        _ => println!("machine ceiling: the calibration runs failed"),
    }
}

/// Child process: check one program and print `verdict states seconds bytes peak_rss
/// lock_waits cpu_seconds transitions lock_acquisitions depth`, then the acquisitions
/// and waits of the store's chunk, node and state tables.
pub fn run_one(args: &[String]) {
    let [program, mm, bound, max, jobs, switches @ ..] = args else {
        println!(
            "error: --one PROGRAM sc|sc+races|tso BOUND MAX_STATES JOBS [--no-por] [--no-symmetry] [--persistent-sets] [--no-race-read-futures] [--no-incremental-canon] [--check-incremental-canon]"
        );
        return;
    };
    let bound: u32 = bound.parse().unwrap_or(32);
    let max: u64 = max.parse().unwrap_or(0);
    let jobs: usize = jobs.parse().unwrap_or(1);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("programs");
    let out = std::env::temp_dir().join(format!("tso-bench-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&out);
    let (src, defines) = super::source(&dir, program);
    let bc = match super::compile(&src, &defines, &out) {
        Ok(b) => b,
        Err(e) => {
            println!("error: {e}");
            return;
        }
    };
    let ctx = inkwell::context::Context::create();
    let module = match tso_engine::parse_module(&ctx, &bc) {
        Ok(m) => m,
        Err(e) => {
            println!("error: {e}");
            return;
        }
    };
    let _ = std::fs::remove_dir_all(&out);
    let mut natives = Natives::standard();
    if mm == "tso" {
        if let Err(e) = instrument_module(
            &module,
            &InstrumentOptions {
                static_locals: true,
                ..InstrumentOptions::default()
            },
        ) {
            println!("error: {e}");
            return;
        }
        runtime::register(
            &mut natives,
            &RuntimeOptions {
                sb_bound: bound,
                dynamic_bypass: true,
                reference_machine: false,
                ..RuntimeOptions::default()
            },
        );
    }
    let prog = tso_engine::translate(&module);
    let mut opts = CheckOptions {
        limits: Limits {
            max_states: (max > 0).then_some(max),
            timeout: Some(Duration::from_secs(600)),
            max_memory: Some(12 << 30),
            deadline: None,
            stop: None,
        },
        jobs,
        ..CheckOptions::default()
    };
    if mm == "sc+races" {
        opts.machine.races = tso_engine::RacePolicy::Warn;
    }
    opts.machine.por = !switches.iter().any(|s| s == "--no-por");
    opts.machine.symmetry = !switches.iter().any(|s| s == "--no-symmetry");
    opts.machine.persistent_sets = switches.iter().any(|s| s == "--persistent-sets");
    opts.machine.race_read_futures = !switches.iter().any(|s| s == "--no-race-read-futures");
    opts.machine.incremental_canon = !switches.iter().any(|s| s == "--no-incremental-canon");
    opts.machine.check_incremental_canon =
        switches.iter().any(|s| s == "--check-incremental-canon");
    let cpu_before = cpu_time();
    let r = check(&prog, &natives, &opts);
    let cpu = (cpu_time() - cpu_before).as_secs_f64();
    let s = &r.stats;
    let verdict = verdict_text(&r, ":");
    let c = &s.contention;
    println!(
        "{verdict} {} {:.4} {} {} {} {cpu:.2} {} {} {} {} {} {} {} {} {}",
        s.states,
        s.time.as_secs_f64(),
        s.stored_bytes,
        s.peak_rss.max(tso_engine::resources::peak_rss()),
        c.waits(),
        s.transitions,
        c.acquisitions(),
        s.max_depth,
        c.chunks.0,
        c.chunks.1,
        c.nodes.0,
        c.nodes.1,
        c.states.0,
        c.states.1,
    );
    // Successors canonicalised with their parent's numbering (`store/canon.rs`).
    let (with_base, kept) = tso_engine::incremental_counts();
    eprintln!("incremental canonicalisation: {kept} of {with_base} runs with a base");
}
