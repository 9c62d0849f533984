//! The slow-test notice (nextest's `SLOW`): "test `x` has been running for over 60s",
//! at every multiple of `--slow-timeout`, on stderr, with where the test is: its
//! phase, states, states/s, depth and memory. Unlike the progress display it is
//! printed when the output is not a terminal too, so a CI log shows what is running.

use std::time::{Duration, Instant};

use crate::pipeline::Snapshot;
use crate::test_cmd::progress::{grouped, rate};

struct Running {
    job: usize,
    name: String,
    start: Instant,
    /// Multiples of the threshold already announced.
    announced: u32,
    /// The growth diagnosis has been announced.
    growth_announced: bool,
}

pub struct SlowWatch {
    threshold: Duration,
    running: Vec<Running>,
}

impl SlowWatch {
    pub fn new(threshold: Duration) -> SlowWatch {
        SlowWatch {
            threshold,
            running: Vec::new(),
        }
    }

    pub fn started(&mut self, job: usize, name: &str, now: Instant) {
        self.running.push(Running {
            job,
            name: name.to_owned(),
            start: now,
            announced: 0,
            growth_announced: false,
        });
    }

    pub fn finished(&mut self, job: usize) {
        self.running.retain(|r| r.job != job);
    }

    /// The notices due at `now`: at most one per running test, for the largest
    /// multiple of the threshold it has passed and not yet been announced for, with
    /// the test's latest figures (`figures(job)`).
    pub fn due(
        &mut self,
        now: Instant,
        figures: impl Fn(usize) -> Option<Snapshot>,
    ) -> Vec<String> {
        let mut notices = Vec::new();
        for test in &mut self.running {
            if !test.growth_announced {
                let growth = figures(test.job).and_then(|s| s.growing);
                if let Some(text) = growth.as_deref().and_then(growth_notice) {
                    test.growth_announced = true;
                    notices.push(format!("test `{}`: {text}", test.name));
                }
            }
        }
        let threshold = self.threshold.as_secs_f64();
        if threshold <= 0.0 {
            return notices;
        }
        for test in &mut self.running {
            let elapsed = now.saturating_duration_since(test.start).as_secs_f64();
            let multiples = (elapsed / threshold).floor() as u32;
            if multiples > test.announced {
                test.announced = multiples;
                let over = threshold * f64::from(multiples);
                let mut notice = format!(
                    "test `{}` has been running for over {}s",
                    test.name,
                    format_seconds(over)
                );
                if let Some(snapshot) = figures(test.job) {
                    notice.push_str(&where_it_is(&snapshot));
                }
                notices.push(notice);
            }
        }
        notices
    }
}

/// `: race search without store buffers, 12,345 states (4,100 states/s), depth 87,
/// memory 1.2 GiB`.
fn where_it_is(snapshot: &Snapshot) -> String {
    let mut text = format!(
        ": {}, {} states",
        snapshot.phase.describe(),
        grouped(snapshot.states)
    );
    if let Some(rate) = rate(snapshot) {
        text.push_str(&format!(" ({} states/s)", grouped(rate)));
    }
    if snapshot.depth > 0 {
        text.push_str(&format!(", depth {}", grouped(snapshot.depth)));
    }
    text.push_str(&format!(
        ", memory {}",
        tso_engine::resources::format_bytes(snapshot.memory)
    ));
    text
}

/// `after 10s, along the path its search is on: `ticks` (grows.c:7) took 1,204
/// distinct values; the state space may not be finite`; None when nothing grows.
fn growth_notice(diagnosis: &tso_engine::Diagnosis) -> Option<String> {
    if diagnosis.growing.is_empty() {
        return None;
    }
    let growing: Vec<String> = diagnosis.growing.iter().map(|g| g.describe()).collect();
    Some(format!(
        "after {}s, along the path its search is on: {}; the state space may not be finite",
        tso_engine::GROWTH_AFTER.as_secs(),
        growing.join(", ")
    ))
}

/// `60`, or `0.5` for thresholds below a second.
fn format_seconds(seconds: f64) -> String {
    if seconds.fract() == 0.0 {
        format!("{seconds:.0}")
    } else {
        format!("{seconds:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_at_each_multiple_of_the_threshold() {
        let start = Instant::now();
        let minute = Duration::from_secs(60);
        let mut watch = SlowWatch::new(minute);
        watch.started(0, "p::f::slow", start);
        watch.started(1, "p::f::quick", start + Duration::from_secs(30));
        let none = |_| None;
        assert!(watch.due(start + Duration::from_secs(59), none).is_empty());
        assert_eq!(
            watch.due(start + Duration::from_secs(61), none),
            ["test `p::f::slow` has been running for over 60s"]
        );
        assert!(
            watch.due(start + Duration::from_secs(62), none).is_empty(),
            "said once"
        );
        watch.finished(1);
        let racing = |job| {
            (job == 0).then_some(Snapshot {
                phase: crate::run_report::Phase::RaceSearch,
                states: 12_000,
                time: Duration::from_secs(4),
                depth: 87,
                memory: 3 << 20,
                growing: None,
            })
        };
        assert_eq!(
            watch.due(start + Duration::from_secs(125), racing),
            [
                "test `p::f::slow` has been running for over 120s: race search without store \
              buffers, 12,000 states (3,000 states/s), depth 87, memory 3.0 MiB"
            ]
        );
        watch.finished(0);
        assert!(watch
            .due(start + Duration::from_secs(1000), none)
            .is_empty());
    }
}
