//! The figures after a run: states, transitions, time, speed, memory.

use tso_engine::resources::format_bytes;

use crate::run_report::Figures;

/// `states: 1234, transitions: 5678, time: 0.12s (10283 states/s), peak memory: 31.2 MiB`
pub fn line(figures: &Figures) -> String {
    format!(
        "states: {}, transitions: {}, time: {:.2}s ({:.0} states/s), peak memory: {}",
        figures.states,
        figures.transitions,
        figures.time.as_secs_f64(),
        figures.states_per_second(),
        format_bytes(figures.peak_memory)
    )
}

/// The time of each phase of the check (`-v`): `time by phase: search 0.12s (1234
/// states), race search (without store buffers) 0.30s (2345 states)`.
pub fn phases_line(figures: &Figures) -> String {
    let phases: Vec<String> = figures
        .phases
        .iter()
        .map(|p| {
            let states = if p.states > 0 {
                format!(" ({} states)", p.states)
            } else {
                String::new()
            };
            format!(
                "{} {:.2}s{states}",
                p.phase.describe(),
                p.time.as_secs_f64()
            )
        })
        .collect();
    format!("time by phase: {}", phases.join(", "))
}

/// What thread symmetry did (`-v`): `symmetry: 2 groups of interchangeable threads
/// (3, 3)`, `symmetry: no interchangeable threads`, or `symmetry: off`.
pub fn symmetry_line(figures: &Figures) -> String {
    match figures.symmetry.as_deref() {
        None => "symmetry: off".to_string(),
        Some([]) => "symmetry: no interchangeable threads".to_string(),
        Some(sizes) => {
            let list: Vec<String> = sizes.iter().map(u32::to_string).collect();
            let groups = if sizes.len() == 1 { "group" } else { "groups" };
            format!(
                "symmetry: {} {groups} of interchangeable threads ({})",
                sizes.len(),
                list.join(", ")
            )
        }
    }
}

/// What the await reduction found (`-v`): `awaits: 2 loops that only read (work at
/// t.c:12, main at t.c:30)`, `awaits: no loop that only reads`, or `awaits: off`.
pub fn awaits_line(figures: &Figures) -> String {
    match figures.awaits.as_deref() {
        None => "awaits: off".to_string(),
        Some([]) => "awaits: no loop that only reads".to_string(),
        Some(found) => format!(
            "awaits: {} loop{} that only read{} ({})",
            found.len(),
            if found.len() == 1 { "" } else { "s" },
            if found.len() == 1 { "s" } else { "" },
            found.join(", ")
        ),
    }
}

/// `1234 states, 0.12s`, for one-line test results.
pub fn short(figures: &Figures) -> String {
    format!(
        "{} states, {:.2}s",
        figures.states,
        figures.time.as_secs_f64()
    )
}

/// The figures of one test in `cargo tso test -v`: the memory is the most heap that
/// test's exploration held (store plus search), not the process's high-water mark
/// (which an earlier, bigger test in the same process would set).
pub fn test_line(figures: &Figures) -> String {
    format!(
        "states: {}, transitions: {}, time: {:.2}s ({:.0} states/s), memory: {}",
        figures.states,
        figures.transitions,
        figures.time.as_secs_f64(),
        figures.states_per_second(),
        format_bytes(figures.exploration_bytes)
    )
}
