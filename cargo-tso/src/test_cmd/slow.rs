//! The slow-test notice (nextest's `SLOW`): "test `x` has been running for over 60s",
//! at every multiple of `--slow-timeout`, on stderr. Unlike the progress display it is
//! printed when the output is not a terminal too, so a CI log shows what is running.

use std::time::{Duration, Instant};

struct Running {
    job: usize,
    name: String,
    start: Instant,
    /// Multiples of the threshold already announced.
    announced: u32,
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
        });
    }

    pub fn finished(&mut self, job: usize) {
        self.running.retain(|r| r.job != job);
    }

    /// The notices due at `now`: at most one per running test, for the largest
    /// multiple of the threshold it has passed and not yet been announced for.
    pub fn due(&mut self, now: Instant) -> Vec<String> {
        let threshold = self.threshold.as_secs_f64();
        if threshold <= 0.0 {
            return Vec::new();
        }
        let mut notices = Vec::new();
        for test in &mut self.running {
            let elapsed = now.saturating_duration_since(test.start).as_secs_f64();
            let multiples = (elapsed / threshold).floor() as u32;
            if multiples > test.announced {
                test.announced = multiples;
                let over = threshold * f64::from(multiples);
                notices.push(format!(
                    "test `{}` has been running for over {}s",
                    test.name,
                    format_seconds(over)
                ));
            }
        }
        notices
    }
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
        assert!(watch.due(start + Duration::from_secs(59)).is_empty());
        assert_eq!(
            watch.due(start + Duration::from_secs(61)),
            ["test `p::f::slow` has been running for over 60s"]
        );
        assert!(
            watch.due(start + Duration::from_secs(62)).is_empty(),
            "said once"
        );
        watch.finished(1);
        assert_eq!(
            watch.due(start + Duration::from_secs(125)),
            ["test `p::f::slow` has been running for over 120s"]
        );
        watch.finished(0);
        assert!(watch.due(start + Duration::from_secs(1000)).is_empty());
    }
}
