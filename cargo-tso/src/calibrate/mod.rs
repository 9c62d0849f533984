//! `cargo tso calibrate`: times the depth-first search on one worker against the
//! breadth-first search on N workers on this machine, and records the ratio where
//! [`crate::settings::choose_search`] reads it. Which search is faster depends on the
//! cores and on what else runs on them, so a table measured elsewhere only guesses.
//!
//! Each search runs as its own `cargo-tso check` process, exactly as a user's run
//! would, alternating so that a change in the machine's load hits both alike; the
//! medians are compared.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::check_cmd::EXIT_TOOL_ERROR;
use crate::cli::CalibrateArgs;

/// The program timed unless `--program` names another: a lock test of three threads.
const PROGRAM: &str = include_str!("program.c");

/// The calibrations of this machine, one per worker count, for one cargo-tso version
/// (another version's engine may search at another speed).
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Calibration {
    pub cargo_tso: String,
    pub measurements: Vec<Measurement>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Measurement {
    /// Breadth-first workers compared with the depth-first search on one.
    pub workers: usize,
    /// Median wall seconds of the breadth-first search ÷ those of the depth-first one.
    pub breadth_first_over_depth_first: f64,
    pub depth_first_seconds: f64,
    pub breadth_first_seconds: f64,
    pub runs: usize,
    pub program: String,
}

/// Where the calibration is kept: beside the bitcode cache.
pub fn calibration_path() -> PathBuf {
    crate::check_cmd::cache_dir().join("search-calibration.json")
}

/// This version's calibration of this machine, if `cargo tso calibrate` made one.
pub fn load() -> Option<Calibration> {
    let text = std::fs::read_to_string(calibration_path()).ok()?;
    let calibration: Calibration = serde_json::from_str(&text).ok()?;
    (calibration.cargo_tso == env!("CARGO_PKG_VERSION")).then_some(calibration)
}

fn save(measurement: Measurement) -> std::io::Result<PathBuf> {
    let mut calibration = load().unwrap_or_else(|| Calibration {
        cargo_tso: env!("CARGO_PKG_VERSION").to_owned(),
        measurements: Vec::new(),
    });
    calibration
        .measurements
        .retain(|m| m.workers != measurement.workers);
    calibration.measurements.push(measurement);
    calibration.measurements.sort_by_key(|m| m.workers);
    let path = calibration_path();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let text = serde_json::to_string_pretty(&calibration).map_err(std::io::Error::other)?;
    std::fs::write(&path, text + "\n")?;
    Ok(path)
}

pub fn run(args: &CalibrateArgs) -> i32 {
    match calibrate(args) {
        Ok(()) => 0,
        Err(message) => {
            eprintln!("error: {message}");
            EXIT_TOOL_ERROR
        }
    }
}

fn calibrate(args: &CalibrateArgs) -> Result<(), String> {
    let workers = args.jobs.unwrap_or_else(crate::settings::cores);
    if workers < 2 {
        println!("1 worker: nothing to compare; `check` searches depth-first on 1 worker");
        return Ok(());
    }
    if args.runs == 0 {
        return Err("--runs must be at least 1".into());
    }
    let program = match &args.program {
        Some(path) => path.clone(),
        None => write_default_program()?,
    };
    // The first run compiles the program and shows that it checks; it is not timed.
    time_check(&program, 1)?;
    let (mut depth_first, mut breadth_first) = (Vec::new(), Vec::new());
    for _ in 0..args.runs {
        depth_first.push(time_check(&program, 1)?);
        breadth_first.push(time_check(&program, workers)?);
    }
    let (df, bf) = (median(&mut depth_first), median(&mut breadth_first));
    let ratio = bf.as_secs_f64() / df.as_secs_f64().max(1e-9);
    let measurement = Measurement {
        workers,
        breadth_first_over_depth_first: ratio,
        depth_first_seconds: df.as_secs_f64(),
        breadth_first_seconds: bf.as_secs_f64(),
        runs: args.runs,
        program: program.display().to_string(),
    };
    let path = save(measurement).map_err(|e| format!("cannot save the calibration: {e}"))?;
    let chosen = crate::settings::choose_search(workers);
    println!(
        "depth-first on 1 worker: {:.2}s, breadth-first on {workers} workers: {:.2}s (medians of {} runs)",
        df.as_secs_f64(),
        bf.as_secs_f64(),
        args.runs
    );
    println!("check now searches {}", chosen.why);
    println!("saved to {}", path.display());
    Ok(())
}

fn write_default_program() -> Result<PathBuf, String> {
    let dir = crate::check_cmd::cache_dir().join("calibrate");
    let path = dir.join("program.c");
    std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&path, PROGRAM))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// Wall time of `cargo-tso check PROGRAM -j WORKERS`, which must pass.
fn time_check(program: &Path, workers: usize) -> Result<Duration, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find cargo-tso itself: {e}"))?;
    let start = Instant::now();
    let out = Command::new(exe)
        .arg("check")
        .arg(program)
        .args(["-j", &workers.to_string()])
        .output()
        .map_err(|e| format!("cannot run cargo-tso check: {e}"))?;
    let time = start.elapsed();
    if !out.status.success() {
        return Err(format!(
            "the calibration program must pass, but `cargo tso check {} -j {workers}` exited with {}:\n{}{}",
            program.display(),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(time)
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}
