//! The slow notice (nextest's `SLOW`): "test `x` has been running for over 60s", at
//! every multiple of `--slow-timeout`, on stderr, with where the check is: its phase,
//! states, states/s, depth and memory; and, once, what keeps growing along the path
//! the search is on. Unlike `cargo tso test`'s progress display it is printed when
//! the output is not a terminal too, so a CI log shows what is running. `cargo tso
//! test` watches each running test, `cargo tso check` its one program.

use std::sync::{mpsc, Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::pipeline::{Snapshot, SnapshotFn};
use tso_engine::resources::thousands;

/// How often a watch looks at the time while it waits.
const TICK: Duration = Duration::from_millis(200);

struct Running {
    job: usize,
    /// What the notices name: "test `p::f::t`", "check of `queue.c`".
    subject: String,
    start: Instant,
    /// Multiples of the threshold already announced.
    announced: u32,
    /// The growth diagnosis has been announced.
    growth_announced: bool,
    /// The advice has been given.
    advised: bool,
}

pub struct SlowWatch {
    threshold: Duration,
    /// The advice given once to a run found slow in its race search.
    race_search_advice: String,
    running: Vec<Running>,
}

impl SlowWatch {
    /// `skip_race_search` is what would skip the race search ("`--races allow`").
    pub fn new(threshold: Duration, skip_race_search: &str) -> SlowWatch {
        SlowWatch {
            threshold,
            race_search_advice: format!(
                "the x86-TSO search has finished; what runs is the search for data races \
                 (without store buffers, with access histories); {skip_race_search} skips it, \
                 and no race is then reported"
            ),
            running: Vec::new(),
        }
    }

    pub fn started(&mut self, job: usize, subject: String, now: Instant) {
        self.running.push(Running {
            job,
            subject,
            start: now,
            announced: 0,
            growth_announced: false,
            advised: false,
        });
    }

    pub fn finished(&mut self, job: usize) {
        self.running.retain(|r| r.job != job);
    }

    /// The notices due at `now`: at most one per watched run, for the largest
    /// multiple of the threshold it has passed and not yet been announced for, with
    /// the run's latest figures (`figures(job)`), followed the first time it is found
    /// in its race search by the advice for it; and a run's growth diagnosis once.
    pub fn due(
        &mut self,
        now: Instant,
        figures: impl Fn(usize) -> Option<Snapshot>,
    ) -> Vec<String> {
        let mut notices = Vec::new();
        for run in &mut self.running {
            if !run.growth_announced {
                let growth = figures(run.job).and_then(|s| s.growing);
                if let Some(text) = growth.as_deref().and_then(growth_notice) {
                    run.growth_announced = true;
                    notices.push(format!("{}: {text}", run.subject));
                }
            }
        }
        let threshold = self.threshold.as_secs_f64();
        if threshold <= 0.0 {
            return notices;
        }
        for run in &mut self.running {
            let elapsed = now.saturating_duration_since(run.start).as_secs_f64();
            let multiples = (elapsed / threshold).floor() as u32;
            if multiples > run.announced {
                run.announced = multiples;
                let over = threshold * f64::from(multiples);
                let mut notice = format!(
                    "{} has been running for over {}s",
                    run.subject,
                    format_seconds(over)
                );
                let snapshot = figures(run.job);
                if let Some(snapshot) = &snapshot {
                    notice.push_str(&where_it_is(snapshot));
                }
                notices.push(notice);
                let racing = snapshot
                    .as_ref()
                    .is_some_and(|s| s.phase == crate::run_report::Phase::RaceSearch);
                if racing && !run.advised {
                    run.advised = true;
                    notices.push(format!("{}: {}", run.subject, self.race_search_advice));
                }
            }
        }
        notices
    }
}

/// Runs `work`, given the progress callback to hand to the searches it makes, and
/// meanwhile gives `print` the notices due for `subject` at `threshold`.
pub fn watch_while<T: Send>(
    threshold: Duration,
    subject: String,
    skip_race_search: &'static str,
    print: impl Fn(&str) + Send,
    work: impl FnOnce(SnapshotFn) -> T + Send,
) -> T {
    let latest: Arc<Mutex<Option<Snapshot>>> = Arc::default();
    let progress: SnapshotFn = {
        let latest = Arc::clone(&latest);
        Arc::new(move |snapshot: &Snapshot| {
            *latest.lock().unwrap_or_else(PoisonError::into_inner) = Some(snapshot.clone());
        })
    };
    let (done, finished) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let mut watch = SlowWatch::new(threshold, skip_race_search);
            watch.started(0, subject, Instant::now());
            let current = || {
                latest
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone()
            };
            while let Err(mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(TICK) {
                for notice in watch.due(Instant::now(), |_| current()) {
                    print(&notice);
                }
            }
        });
        let result = work(progress);
        drop(done);
        result
    })
}

/// `: race search without store buffers, 12,345 states (4,100 states/s), depth 87,
/// memory 1.2 GiB`.
fn where_it_is(snapshot: &Snapshot) -> String {
    let mut text = format!(
        ": {}, {} states",
        snapshot.phase.describe(),
        thousands(snapshot.states)
    );
    if let Some(rate) = snapshot.rate() {
        text.push_str(&format!(" ({} states/s)", thousands(rate)));
    }
    if snapshot.depth > 0 {
        text.push_str(&format!(", depth {}", thousands(snapshot.depth)));
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
        let mut watch = SlowWatch::new(minute, "`--races allow`");
        watch.started(0, "test `p::f::slow`".into(), start);
        watch.started(
            1,
            "test `p::f::quick`".into(),
            start + Duration::from_secs(30),
        );
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
              buffers, 12,000 states (3,000 states/s), depth 87, memory 3.0 MiB",
                "test `p::f::slow`: the x86-TSO search has finished; what runs is the search \
              for data races (without store buffers, with access histories); `--races allow` \
              skips it, and no race is then reported"
            ]
        );
        assert_eq!(
            watch.due(start + Duration::from_secs(185), racing),
            [
                "test `p::f::slow` has been running for over 180s: race search without store \
              buffers, 12,000 states (3,000 states/s), depth 87, memory 3.0 MiB"
            ],
            "the advice once"
        );
        watch.finished(0);
        assert!(watch
            .due(start + Duration::from_secs(1000), none)
            .is_empty());
    }

    #[test]
    fn a_watch_announces_a_long_run_with_its_phase_and_the_advice_once() {
        let printed = Mutex::new(Vec::<String>::new());
        let print = |line: &str| printed.lock().unwrap().push(line.to_owned());
        watch_while(
            Duration::from_millis(50),
            "check of `x.c`".into(),
            "`--races allow`",
            print,
            |progress| {
                progress(&Snapshot {
                    phase: crate::run_report::Phase::RaceSearch,
                    states: 7,
                    time: Duration::ZERO,
                    depth: 0,
                    memory: 1 << 20,
                    growing: None,
                });
                // Until two notices are out (the bound only keeps a broken watch from
                // hanging the suite).
                for _ in 0..600 {
                    let notices = printed
                        .lock()
                        .unwrap()
                        .iter()
                        .filter(|l| l.contains("over"))
                        .count();
                    if notices >= 2 {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
            },
        );
        let printed = printed.into_inner().unwrap();
        assert!(
            printed[0].starts_with("check of `x.c` has been running for over 0.")
                && printed[0]
                    .ends_with(": race search without store buffers, 7 states, memory 1.0 MiB"),
            "{printed:?}"
        );
        assert!(
            printed[1].starts_with("check of `x.c`: the x86-TSO search has finished")
                && printed[1].contains("`--races allow` skips it"),
            "{printed:?}"
        );
        assert_eq!(
            printed.iter().filter(|l| l.contains("skips it")).count(),
            1,
            "{printed:?}"
        );
        assert!(printed.len() >= 3, "{printed:?}");
    }
}
