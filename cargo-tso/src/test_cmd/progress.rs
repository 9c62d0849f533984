//! The live progress display: tests done of total and, for each running test, the
//! states explored so far and the rate. Drawn only when stderr is a terminal and not
//! in CI; the figures are kept in any case, for the slow-test notices (`slow.rs`).

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::pipeline::Snapshot;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tso_engine::resources::thousands;

/// Called by the runner with a job's index and the figures so far.
pub type JobProgressFn = Arc<dyn Fn(usize, &Snapshot) + Send + Sync>;

/// The engine calls back every few hundred transitions; redraw at most this often.
const REFRESH: Duration = Duration::from_millis(100);

/// One running test as shown.
#[derive(Debug, Clone, PartialEq)]
pub struct RunningTest {
    pub job: usize,
    pub name: String,
    /// The latest figures, once the engine has reported.
    pub figures: Option<Snapshot>,
}

#[derive(Debug)]
struct Board {
    running: Vec<RunningTest>,
    last_refresh: Option<Instant>,
}

pub struct Progress {
    bar: Option<ProgressBar>,
    board: Mutex<Board>,
}

/// Whether the display is wanted: `enabled` by the format, stderr a terminal, no CI.
fn wanted(enabled: bool) -> bool {
    enabled && std::io::stderr().is_terminal() && std::env::var_os("CI").is_none()
}

impl Progress {
    pub fn new(total: usize, enabled: bool) -> Arc<Progress> {
        let bar = wanted(enabled).then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:20} {pos}/{len} {wide_msg}",
            ) {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        Arc::new(Progress {
            bar,
            board: Mutex::new(Board {
                running: Vec::new(),
                last_refresh: None,
            }),
        })
    }

    /// A poisoned lock only means a reporter panicked mid-update: the board is still
    /// fine to show.
    fn board(&self) -> MutexGuard<'_, Board> {
        self.board.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn show(&self, board: &mut Board) {
        if let Some(bar) = &self.bar {
            bar.set_message(running_line(&board.running));
            board.last_refresh = Some(Instant::now());
        }
    }

    pub fn started(&self, job: usize, name: &str) {
        let mut board = self.board();
        board.running.push(RunningTest {
            job,
            name: name.to_owned(),
            figures: None,
        });
        self.show(&mut board);
    }

    pub fn finished(&self, job: usize) {
        let mut board = self.board();
        board.running.retain(|r| r.job != job);
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
        self.show(&mut board);
    }

    /// Records a running job's figures (called on the worker threads).
    pub fn update(&self, job: usize, snapshot: &Snapshot) {
        let mut board = self.board();
        if let Some(running) = board.running.iter_mut().find(|r| r.job == job) {
            running.figures = Some(snapshot.clone());
        }
        if board.last_refresh.is_none_or(|at| at.elapsed() >= REFRESH) {
            self.show(&mut board);
        }
    }

    /// A running job's latest figures.
    pub fn snapshot(&self, job: usize) -> Option<Snapshot> {
        self.board()
            .running
            .iter()
            .find(|r| r.job == job)
            .and_then(|r| r.figures.clone())
    }

    /// The callback to give the runner (the engine calls it every 256 transitions or
    /// so: a lock and a copy).
    pub fn job_callback(self: &Arc<Progress>) -> JobProgressFn {
        let progress = Arc::clone(self);
        Arc::new(move |job, snapshot| progress.update(job, snapshot))
    }

    /// Runs `f` (which prints) with the bar hidden.
    pub fn suspend<T>(&self, f: impl FnOnce() -> T) -> T {
        match &self.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The message after the bar: each running test with its states and states/s.
pub fn running_line(running: &[RunningTest]) -> String {
    if running.is_empty() {
        return String::new();
    }
    let mut line = String::from("running:");
    for (i, test) in running.iter().enumerate() {
        let separator = if i == 0 { " " } else { ", " };
        let _ = write!(line, "{separator}{}", test.name);
        if let Some(snapshot) = &test.figures {
            let _ = write!(line, " ({} states", thousands(snapshot.states));
            if let Some(rate) = snapshot.rate() {
                let _ = write!(line, ", {} states/s", thousands(rate));
            }
            line.push(')');
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn snapshot(states: u64, time: Duration) -> Snapshot {
        Snapshot {
            phase: crate::run_report::Phase::Search,
            states,
            time,
            depth: 0,
            memory: 0,
            growing: None,
        }
    }

    fn running(job: usize, name: &str, figures: Option<(u64, Duration)>) -> RunningTest {
        RunningTest {
            job,
            name: name.to_owned(),
            figures: figures.map(|(states, time)| snapshot(states, time)),
        }
    }

    #[test]
    fn line_shows_states_and_rate_of_each_running_test() {
        let line = running_line(&[
            running(
                3,
                "p::ring::push_pop",
                Some((1_234_567, Duration::from_secs(2))),
            ),
            running(4, "p::lock::dekker [sb=2]", None),
            running(5, "p::f::t", Some((12, Duration::ZERO))),
        ]);
        assert_eq!(
            line,
            "running: p::ring::push_pop (1,234,567 states, 617,283 states/s), \
             p::lock::dekker [sb=2], p::f::t (12 states)"
        );
    }

    #[test]
    fn updates_follow_the_job_and_finished_jobs_leave() {
        // Not enabled: no bar, but the board is still kept (for slow-test notices).
        let progress = Progress::new(2, false);
        progress.started(0, "a");
        progress.started(1, "b");
        (progress.job_callback())(1, &snapshot(40, Duration::from_secs(4)));
        assert_eq!(progress.snapshot(1).map(|s| s.states), Some(40));
        progress.finished(0);
        assert_eq!(
            running_line(&progress.board().running),
            "running: b (40 states, 10 states/s)"
        );
        progress.finished(1);
        assert_eq!(running_line(&progress.board().running), "");
    }
}
