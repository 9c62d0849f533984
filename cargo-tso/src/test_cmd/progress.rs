//! The live progress display: tests done of total and what is running. Only when
//! stderr is a terminal and not in CI.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub struct Progress {
    bar: Option<ProgressBar>,
    running: Vec<String>,
}

impl Progress {
    pub fn new(total: usize, enabled: bool) -> Progress {
        let wanted = enabled && std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
        let bar = wanted.then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {wide_msg}",
            ) {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        Progress {
            bar,
            running: Vec::new(),
        }
    }

    fn show_running(&self) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("running: {}", self.running.join(", ")));
        }
    }

    pub fn started(&mut self, name: &str) {
        self.running.push(name.to_owned());
        self.show_running();
    }

    pub fn finished(&mut self, name: &str) {
        if let Some(i) = self.running.iter().position(|n| n == name) {
            self.running.remove(i);
        }
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
        self.show_running();
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
