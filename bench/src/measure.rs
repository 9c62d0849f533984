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

/// The user + system CPU time of this process's waited-for children (all their threads),
/// to the microsecond: `/proc/self/stat` counts it in 10 ms clock ticks, which made a
/// 15 ms check read 0.01 s or 0.02 s (`--defaults` compares checks that short).
pub(crate) fn children_cpu_time() -> Duration {
    // SAFETY: `getrusage` only writes the `rusage` it is given; all-zero bytes are a
    // valid `rusage` (plain integers).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) } != 0 {
        return Duration::ZERO;
    }
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    time(usage.ru_utime) + time(usage.ru_stime)
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

#[cfg(test)]
mod tests {
    use super::children_cpu_time;

    /// A child's CPU time is counted once it is waited for, finer than a clock tick:
    /// of three children's times, not every one is a whole number of 10 ms ticks.
    #[test]
    fn children_cpu_time_counts_waited_children_below_a_tick() {
        let mut deltas = Vec::new();
        for _ in 0..3 {
            let before = children_cpu_time();
            let status = std::process::Command::new("sh")
                .args(["-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"])
                .status()
                .expect("sh runs");
            assert!(status.success());
            deltas.push(children_cpu_time() - before);
        }
        assert!(deltas.iter().all(|d| !d.is_zero()), "{deltas:?}");
        assert!(
            deltas.iter().any(|d| d.as_micros() % 10_000 != 0),
            "{deltas:?}"
        );
    }
}
