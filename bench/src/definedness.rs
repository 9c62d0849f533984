//! `tso-bench --definedness [PROGRAM...]`: the cost of tracking uninitialised bits.
//! Each program runs with definedness tracking on (the default) and off
//! (`--no-definedness`), and a row reports states, wall and CPU time per run, and
//! stored bytes per state. Small programs are repeated until a second of wall time has
//! passed, so their per-run figures are averages; CPU time (user + system of this
//! process, from `/proc/self/stat`) is less disturbed than wall time when other work
//! shares the machine.

use super::measure::{repeated, repeated_options, verdict_text, Repeated};
use super::{prepare, Config, SC, TSO};
use std::path::Path;

/// (program, configuration, state limit): the mutual-exclusion programs under SC and
/// (fenced, so they pass) under TSO, and the 4-thread Treiber stack under TSO.
const RUNS: &[(&str, &Config, Option<u64>)] = &[
    ("peterson", &SC, None),
    ("dekker", &SC, None),
    ("bakery", &SC, None),
    ("szymanski", &SC, None),
    ("mutex3", &SC, None),
    ("peterson_fenced", &TSO, None),
    ("dekker_fenced", &TSO, None),
    ("bakery_fenced", &TSO, None),
    ("szymanski_fenced", &TSO, None),
    ("mutex3", &TSO, None),
    ("treiber4", &TSO, Some(200_000)),
];

pub fn run_all(args: &[String]) {
    let only: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("programs");
    let out = std::env::temp_dir().join(format!("tso-bench-def-{}", std::process::id()));
    if std::fs::create_dir_all(&out).is_err() {
        eprintln!("cannot create {}", out.display());
        std::process::exit(2);
    }
    println!(
        "{:<18} {:<5} {:<5} {:<13} {:>9} {:>5} {:>10} {:>10} {:>8}",
        "program", "mm", "def", "verdict", "states", "runs", "wall/run", "cpu/run", "B/state"
    );
    for &(program, cfg, max_states) in RUNS {
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
        for definedness in [true, false] {
            let mut opts = repeated_options(max_states);
            opts.machine.definedness = definedness;
            let Repeated {
                report,
                runs,
                wall,
                cpu,
            } = repeated(&prog, &natives, &opts);
            let s = &report.stats;
            let verdict = verdict_text(&report, " ");
            println!(
                "{program:<18} {:<5} {:<5} {verdict:<13} {:>9} {runs:>5} {:>9.4}s {:>9.4}s {:>8.0}",
                if cfg.tso { "tso" } else { "sc" },
                if definedness { "on" } else { "off" },
                s.states,
                wall.as_secs_f64(),
                cpu.as_secs_f64(),
                s.stored_bytes as f64 / s.states.max(1) as f64,
            );
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}
