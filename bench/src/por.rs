//! `tso-bench --por [PROGRAM...]`: partial-order reduction (sleep sets `slp`, or the
//! experimental persistent sets `pst`, which store fewer states) and thread
//! symmetry. Each program runs with both reductions (the default), with persistent
//! sets, without POR (`--no-por`), without symmetry (`--no-symmetry`) and without either, on one search
//! worker (depth-first), capped at 300,000 states; a row reports the verdict, states
//! (POR keeps every state; symmetry merges permuted ones), transitions stored, and
//! wall and CPU time per run. Small programs are repeated until a second of wall time has
//! passed, so their per-run figures are averages.

use super::measure::{repeated, repeated_options, verdict_text, Repeated};
use super::{prepare, Config, SC, SC_RACES, TSO};
use std::path::Path;

/// (program, configuration): the mutual-exclusion programs under SC (mutex3 with race
/// tracking too) and (fenced, so they pass) under TSO, and the locks and lock-free
/// structures of issue 15.
const RUNS: &[(&str, &Config)] = &[
    ("peterson", &SC),
    ("dekker", &SC),
    ("bakery", &SC),
    ("szymanski", &SC),
    ("mutex3", &SC),
    ("mutex3", &SC_RACES),
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
    // Identical detached workers: thread symmetry merges their permutations.
    ("ticket4x2_detached", &TSO),
    ("mcs4_detached", &TSO),
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
        "{:<18} {:<9} {:<4} {:<4} {:<13} {:>9} {:>11} {:>5} {:>10} {:>10}",
        "program",
        "mm",
        "por",
        "sym",
        "verdict",
        "states",
        "transitions",
        "runs",
        "wall/run",
        "cpu/run"
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
        // (por, symmetry, persistent sets instead of sleep sets)
        for (por, symmetry, persistent) in [
            (true, true, false),
            (true, true, true),
            (false, true, false),
            (true, false, false),
            (true, false, true),
            (false, false, false),
        ] {
            let mut opts = repeated_options(Some(MAX_STATES));
            opts.machine.por = por;
            opts.machine.persistent_sets = persistent;
            opts.machine.symmetry = symmetry;
            if cfg.races {
                opts.machine.races = tso_engine::RacePolicy::Warn;
            }
            let Repeated {
                report,
                runs,
                wall,
                cpu,
            } = repeated(&prog, &natives, &opts);
            let s = &report.stats;
            let verdict = verdict_text(&report, " ");
            let on = |b: bool| if b { "on" } else { "off" };
            let por_kind = match (por, persistent) {
                (false, _) => "off",
                (true, false) => "slp",
                (true, true) => "pst",
            };
            println!(
                "{program:<18} {:<9} {:<4} {:<4} {verdict:<13} {:>9} {:>11} {runs:>5} {:>9.4}s {:>9.4}s",
                cfg.name,
                por_kind,
                on(symmetry),
                s.states,
                s.transitions,
                wall.as_secs_f64(),
                cpu.as_secs_f64(),
            );
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}
