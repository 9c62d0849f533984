//! What every benchmark mode measures the same way: CPU time, a check repeated until
//! it has run for a second (and its limits), and a report's verdict as text.

use std::time::{Duration, Instant};
use tso_engine::{check, CheckOptions, CheckReport, Limits, Natives};

/// Default options for a repeated check: at most `max_states`, five minutes and
/// 16 GiB.
pub(crate) fn repeated_options(max_states: Option<u64>) -> CheckOptions {
    CheckOptions {
        limits: Limits {
            max_states,
            timeout: Some(Duration::from_secs(300)),
            max_memory: Some(16 << 30),
            deadline: None,
            stop: None,
        },
        ..CheckOptions::default()
    }
}

/// This process's user + system CPU time.
pub(crate) fn cpu_time() -> Duration {
    // utime and stime: the 12th and 13th fields after the command name.
    stat_ticks(11)
}

/// The user + system CPU time of this process's waited-for children (all their threads).
pub(crate) fn children_cpu_time() -> Duration {
    // cutime and cstime: the 14th and 15th fields after the command name.
    stat_ticks(13)
}

/// The sum of the two clock-tick fields of `/proc/self/stat` from index `first` on,
/// counted after the command name (which is in parentheses); 100 ticks a second on Linux.
fn stat_ticks(first: usize) -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<u64> = rest
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    let ticks =
        fields.get(first).copied().unwrap_or(0) + fields.get(first + 1).copied().unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

/// "pass", "inconclusive", or "fail" and the error kind, joined by `sep`.
pub(crate) fn verdict_text(r: &CheckReport, sep: &str) -> String {
    match &r.failure {
        Some(f) if r.verdict != tso_engine::Verdict::Inconclusive => {
            format!("{}{sep}{}", r.verdict.as_str(), f.kind)
        }
        _ => r.verdict.as_str().to_string(),
    }
}

/// A check run again and again for at least a second (at most 200 times): the last
/// report, and the wall and CPU time of one run on average.
pub(crate) struct Repeated {
    pub report: CheckReport,
    pub runs: u32,
    pub wall: Duration,
    pub cpu: Duration,
}

pub(crate) fn repeated(
    prog: &tso_engine::Program,
    natives: &Natives,
    opts: &CheckOptions,
) -> Repeated {
    let (wall0, cpu0) = (Instant::now(), cpu_time());
    let mut runs = 0u32;
    let report = loop {
        let r = check(prog, natives, opts);
        runs += 1;
        if wall0.elapsed() >= Duration::from_secs(1) || runs >= 200 {
            break r;
        }
    };
    Repeated {
        report,
        runs,
        wall: wall0.elapsed() / runs,
        cpu: (cpu_time() - cpu0) / runs,
    }
}
