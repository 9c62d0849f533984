//! Reading this process's memory use (Linux /proc), for limits and reports, and
//! writing the figures of reports for people (bytes, counts).

fn statm_field(idx: usize) -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| {
            s.split_whitespace()
                .nth(idx)
                .and_then(|v| v.parse::<u64>().ok())
        })
        .map(|pages| pages * 4096)
        .unwrap_or(0)
}

/// Physical memory of the machine, in bytes (0 if unknown). Read once per process:
/// the limits observer asks on every tick, and /proc/meminfo is slow to generate.
pub fn total_memory() -> u64 {
    static TOTAL: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *TOTAL.get_or_init(read_total_memory)
}

fn read_total_memory() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| {
                    l.split_whitespace()
                        .nth(1)
                        .and_then(|v| v.parse::<u64>().ok())
                })
        })
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

/// The memory limit used when none is given: stop before the machine runs out.
pub(crate) fn default_memory_limit() -> Option<u64> {
    match total_memory() {
        0 => None,
        total => Some(total / 10 * 8),
    }
}

/// Resident set size now, in bytes.
pub(crate) fn current_rss() -> u64 {
    statm_field(1)
}

/// Why a search stops for memory, when the process's resident set has reached
/// `max_memory` (`--max-memory`), or 80% of the machine when none is given.
pub(crate) fn memory_limit_reached(max_memory: Option<u64>) -> Option<String> {
    let rss = current_rss();
    match max_memory {
        Some(max) => {
            (rss >= max).then(|| format!("{MAX_MEMORY_REACHED}{} reached", format_bytes(max)))
        }
        None => default_memory_limit().filter(|&max| rss >= max).map(|max| {
            format!(
                "{MACHINE_MEMORY_REACHED}{} (80% of this machine; set --max-memory to change)",
                format_bytes(max)
            )
        }),
    }
}

/// How the reasons of [`memory_limit_reached`] start.
const MAX_MEMORY_REACHED: &str = "--max-memory ";
const MACHINE_MEMORY_REACHED: &str = "memory use reached ";

/// Whether a search's stop `reason` is the process's memory limit
/// ([`memory_limit_reached`]), which searches running side by side share.
pub fn is_process_memory_limit(reason: &str) -> bool {
    reason.starts_with(MAX_MEMORY_REACHED) || reason.starts_with(MACHINE_MEMORY_REACHED)
}

/// Start measuring the peak resident set size afresh (Linux: clear_refs 5), so one
/// process can report the peak of each of several runs.
pub fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Peak resident set size (VmHWM), in bytes.
pub fn peak_rss() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|v| v.parse::<u64>().ok())
            })
        })
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

pub fn format_bytes(b: u64) -> String {
    if b >= 1 << 30 {
        format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64)
    } else if b >= 1 << 20 {
        format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64)
    } else if b >= 1 << 10 {
        format!("{:.1} KiB", b as f64 / 1024.0)
    } else {
        format!("{b} B")
    }
}

/// Parse `512M`, `2G`, `100000`, `1.5GiB`.
pub fn parse_bytes(s: &str) -> Option<u64> {
    let s = s.trim();
    let idx = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(idx);
    let n: f64 = num.parse().ok()?;
    let mult = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1u64,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return None,
    };
    Some((n * mult as f64) as u64)
}

/// `2,451,006`: a count with its thousands grouped.
pub fn thousands(n: u64) -> String {
    let mut groups = Vec::new();
    let mut rest = n;
    while rest >= 1000 {
        groups.push(format!("{:03}", rest % 1000));
        rest /= 1000;
    }
    groups.push(rest.to_string());
    groups.reverse();
    groups.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_bytes_units() {
        assert_eq!(parse_bytes("100000"), Some(100_000));
        assert_eq!(parse_bytes("512M"), Some(512 << 20));
        assert_eq!(parse_bytes("2G"), Some(2 << 30));
        assert_eq!(parse_bytes("1.5GiB"), Some(3 << 29));
        assert_eq!(parse_bytes(" 64 kb "), Some(64 << 10));
        assert_eq!(parse_bytes("1t"), Some(1 << 40));
        assert_eq!(parse_bytes("12B"), Some(12));
        assert_eq!(parse_bytes(""), None);
        assert_eq!(parse_bytes("M"), None);
        assert_eq!(parse_bytes("10X"), None);
        assert_eq!(parse_bytes("-5M"), None);
    }

    #[test]
    fn format_bytes_picks_the_unit() {
        assert_eq!(format_bytes(0), "0 B");
        assert_eq!(format_bytes(1023), "1023 B");
        assert_eq!(format_bytes(1024), "1.0 KiB");
        assert_eq!(format_bytes(1536), "1.5 KiB");
        assert_eq!(format_bytes(512 << 20), "512.0 MiB");
        assert_eq!(format_bytes(3 << 29), "1.5 GiB");
        for s in ["1.0 KiB", "512.0 MiB", "1.5 GiB"] {
            assert_eq!(format_bytes(parse_bytes(s).expect("parses")), s);
        }
    }

    #[test]
    fn memory_readings_are_plausible() {
        let rss = current_rss();
        assert!(rss > 1 << 20, "rss {rss}");
        assert!(peak_rss() >= rss / 2, "peak {} rss {rss}", peak_rss());
    }

    /// The process's memory limit is told apart from other reasons to stop: a caller
    /// that ran two searches side by side runs one stopped there again alone.
    #[test]
    fn a_reached_memory_limit_is_recognised_as_the_process_s() {
        let reached = memory_limit_reached(Some(1)).expect("any process holds a byte");
        assert_eq!(reached, "--max-memory 1 B reached");
        assert!(is_process_memory_limit(&reached));
        assert_eq!(memory_limit_reached(Some(u64::MAX)), None);
        for other in [
            "--max-states 40 reached",
            "--timeout 1s reached",
            "interrupted",
        ] {
            assert!(!is_process_memory_limit(other), "{other}");
        }
        assert!(is_process_memory_limit(
            "memory use reached 19.2 GiB (80% of this machine; set --max-memory to change)"
        ));
    }

    #[test]
    fn large_counts_are_grouped_by_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(100_000), "100,000");
        assert_eq!(thousands(2_451_006), "2,451,006");
    }
}
