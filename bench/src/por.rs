//! `tso-bench --por [PROGRAM...]`: partial-order reduction (sleep sets). Each program
//! runs with the reduction on (the default) and off (`--no-por`), on one search worker
//! (depth-first), capped at 300,000 states; a row reports the verdict, states (equal
//! with and without: the reduction keeps every state), transitions stored, and wall and
//! CPU time per run. Small programs are repeated until a second of wall time has
//! passed, so their per-run figures are averages.

use super::measure::{repeated, verdict_text, Repeated};
use super::{prepare, Config, SC, TSO};
use std::path::Path;
use std::time::Duration;
use tso_engine::explore::Limits;
use tso_engine::CheckOptions;

/// (program, configuration): the mutual-exclusion programs under SC and (fenced, so
/// they pass) under TSO, and the locks and lock-free structures of issue 15.
const RUNS: &[(&str, &Config)] = &[
    ("peterson", &SC),
    ("dekker", &SC),
    ("bakery", &SC),
    ("szymanski", &SC),
    ("mutex3", &SC),
    ("peterson_fenced", &TSO),
    ("dekker_fenced", &TSO),
    ("bakery_fenced", &TSO),
    ("szymanski_fenced", &TSO),
    ("mutex3", &TSO),
    ("indexer", &TSO),
    ("ticket4x2", &SC),
    ("ticket4x2", &TSO),
    ("mcs4", &SC),
    ("mcs4", &TSO),
    ("treiber4", &SC),
    ("treiber4", &TSO),
    ("mpmc3x3", &TSO),
];

/// States at most per run (the larger programs are cut there).
const MAX_STATES: u64 = 300_000;

pub fn run_all(args: &[String]) {
    let only: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("programs");
    let out = std::env::temp_dir().join(format!("tso-bench-por-{}", std::process::id()));
    if std::fs::create_dir_all(&out).is_err() {
        eprintln!("cannot create {}", out.display());
        std::process::exit(2);
    }
    println!(
        "{:<18} {:<5} {:<5} {:<13} {:>9} {:>11} {:>5} {:>10} {:>10}",
        "program", "mm", "por", "verdict", "states", "transitions", "runs", "wall/run", "cpu/run"
    );
    for &(program, cfg) in RUNS {
        if !only.is_empty() && !only.iter().any(|o| o.as_str() == program) {
            continue;
        }
        let (prog, natives) = match prepare(&dir, &out, program, cfg, 32) {
            Ok(p) => p,
            Err(e) => {
                println!("{program:<18} error: {e}");
                continue;
            }
        };
        for por in [true, false] {
            let mut opts = CheckOptions {
                limits: Limits {
                    max_states: Some(MAX_STATES),
                    timeout: Some(Duration::from_secs(300)),
                    max_memory: Some(16 << 30),
                },
                ..CheckOptions::default()
            };
            opts.machine.por = por;
            // The reduction is off under thread symmetry.
            opts.machine.symmetry = false;
            let Repeated {
                report,
                runs,
                wall,
                cpu,
            } = repeated(&prog, &natives, &opts);
            let s = &report.stats;
            let verdict = verdict_text(&report, " ");
            println!(
                "{program:<18} {:<5} {:<5} {verdict:<13} {:>9} {:>11} {runs:>5} {:>9.4}s {:>9.4}s",
                if cfg.tso { "tso" } else { "sc" },
                if por { "on" } else { "off" },
                s.states,
                s.transitions,
                wall.as_secs_f64(),
                cpu.as_secs_f64(),
            );
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}
