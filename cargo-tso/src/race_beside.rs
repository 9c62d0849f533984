//! The race search of a TSO check beside its TSO run, on a core the TSO run's search
//! leaves idle (`CheckSettings::race_search_beside`).
//!
//! Run after the TSO run, the race search only adds its time to the check's. It needs
//! nothing from the TSO run except the decision whether to run at all
//! (`pipeline::race_search_wanted`): it searches the same program under the same
//! settings and limits, with its own states and memory account. So it can start as soon
//! as that decision can only be yes, and run beside the TSO run: at once for a search
//! for races, or for a program the race screen does not apply to; otherwise when the
//! TSO run's screen sees its first pair of conflicting next accesses
//! (`tso_engine::CheckOptions::on_screen_conflict`). If the TSO run then does not want
//! it (a limit stopped the TSO run), it is stopped and dropped, so the reports are
//! those of the order "TSO run, then race search" in every case.
//!
//! The one thing the two searches share is the process's memory limit (`--max-memory`
//! of `check`, or the machine's, measured on the resident set): a search stopped there
//! beside the other runs again alone, once the allocator has given back the pages the
//! dropped search freed (`memory_use::return_freed_memory`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use tso_engine::{ErrorKind, Verdict};

use crate::pipeline::{
    panic_message, race_search_wanted, race_search_with, run_model, PipelineError, Request,
    RunExtras, Snapshot, SnapshotFn, WORKER_STACK_SIZE,
};
use crate::run_report::RunReport;
use crate::settings::{CheckSettings, RaceSearchOrder};

/// What became of the race search beside the TSO run.
pub(crate) enum Beside {
    /// The settings ran it after the TSO run.
    NotPlanned,
    /// Its report.
    Ran(Box<RunReport>),
    /// It had not started when the TSO run ended (the run called for it only then, by
    /// its failure or its answer to the race screen), or it could not start.
    NotStarted,
    /// The memory limit of the process, which the two searches shared, stopped one of
    /// them: what it stopped runs again alone.
    SharedMemory,
}

/// What the race search beside the TSO run is told (until then the TSO run may still
/// make it needless).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Signal {
    /// The TSO run's answer calls for the search: run it.
    Run,
    /// The TSO run ended without having called for it: end without running.
    Skip,
}

/// The first word the race search hears from the TSO run, and the condition it waits on.
#[derive(Default)]
struct Word {
    signal: Mutex<Option<Signal>>,
    changed: Condvar,
}

impl Word {
    /// Says `to` unless something was said before; returns what stands.
    fn tell(&self, to: Signal) -> Signal {
        let mut signal = self.signal.lock().unwrap_or_else(|e| e.into_inner());
        let said = *signal.get_or_insert(to);
        self.changed.notify_all();
        said
    }

    /// Waits for the first word.
    fn wait(&self) -> Signal {
        let mut signal = self.signal.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            match *signal {
                Some(said) => return said,
                None => signal = self.changed.wait(signal).unwrap_or_else(|e| e.into_inner()),
            }
        }
    }
}

/// Runs the TSO run of `tso_request` (with `extras`) on this thread and `request`'s race
/// search on another one, started as soon as the TSO run knows it will want it (module
/// doc). Gives the TSO run's report and what became of the race search; `None` when the
/// TSO run was stopped by the process's memory limit while the race search ran beside
/// it (the caller runs the TSO run again, alone).
pub(crate) fn tso_run_and_race_search(
    request: &Request<'_>,
    tso_request: &Request<'_>,
    extras: &RunExtras,
    race_target: Option<ErrorKind>,
) -> Result<Option<(RunReport, Beside)>, PipelineError> {
    let word = Arc::new(Word::default());
    let cancel = Arc::new(AtomicBool::new(false));
    let tso_finished = Arc::new(AtomicBool::new(false));
    // The race search's progress shows once the TSO run's has ended: one phase at a
    // time, as when it runs after.
    let progress = request.progress.clone().map(|report| {
        let tso_finished = tso_finished.clone();
        Arc::new(move |snapshot: &Snapshot| {
            if tso_finished.load(Ordering::Relaxed) {
                report(snapshot)
            }
        }) as SnapshotFn
    });
    let race_request = Request {
        progress,
        ..request.clone()
    };
    let race_extras = RunExtras {
        cancel: Some(cancel.clone()),
        ..RunExtras::default()
    };
    let (race_request, race_extras) = (&race_request, &race_extras);
    std::thread::scope(|scope| {
        let waiting = word.clone();
        let race_search = std::thread::Builder::new()
            .name("tso-race-search".into())
            .stack_size(WORKER_STACK_SIZE)
            .spawn_scoped(scope, move || {
                (waiting.wait() == Signal::Run)
                    .then(|| race_search_with(race_request, race_target, race_extras))
            });
        let Ok(race_search) = race_search else {
            // No thread for it: the race search runs after the TSO run.
            return Ok(Some((run_model(tso_request, extras)?, Beside::NotStarted)));
        };
        if race_target.is_some() || !tso_request.settings.machine.answer_race_screen {
            // Nothing the TSO run finds can make it needless.
            word.tell(Signal::Run);
        }
        let conflict = word.clone();
        let tso_extras = RunExtras {
            on_screen_conflict: Some(Arc::new(move || {
                conflict.tell(Signal::Run);
            })),
            ..extras.clone()
        };
        // A panic of the TSO run must not leave the scope waiting for a race search
        // that waits for word of it (or runs on for nothing).
        let tso_run = catch_unwind(AssertUnwindSafe(|| run_model(tso_request, &tso_extras)));
        tso_finished.store(true, Ordering::Relaxed);
        let tso_run = match tso_run {
            Ok(tso_run) => tso_run,
            Err(payload) => {
                word.tell(Signal::Skip);
                cancel.store(true, Ordering::Relaxed);
                let _ = race_search.join();
                std::panic::resume_unwind(payload);
            }
        };
        let wanted = tso_run.as_ref().is_ok_and(|outcome| {
            race_search_wanted(outcome, outcome.race_screen.as_ref(), race_target)
        });
        let started = word.tell(Signal::Skip) == Signal::Run;
        if started && !wanted {
            cancel.store(true, Ordering::Relaxed);
        }
        let waiting_from = std::time::Instant::now();
        let race_run = race_search
            .join()
            .map_err(|payload| PipelineError::Internal(panic_message(payload.as_ref())))?;
        let waited = waiting_from.elapsed();
        let tso_run = tso_run?;
        if started && stopped_at_process_memory(&tso_run) {
            crate::memory_use::return_freed_memory();
            return Ok(None);
        }
        let beside = match race_run.filter(|_| wanted).transpose()? {
            Some(race_run) if stopped_at_process_memory(&race_run) => {
                crate::memory_use::return_freed_memory();
                Beside::SharedMemory
            }
            Some(mut race_run) => {
                race_run.figures.waited_for(waited);
                Beside::Ran(Box::new(race_run))
            }
            None => Beside::NotStarted,
        };
        Ok(Some((tso_run, beside)))
    })
}

/// Whether `run` was stopped by a memory limit of the whole process (`--max-memory` of
/// `check`, or the machine's: `tso_engine::explore` measures the resident set), which
/// two searches side by side share; a test's own budget (`memory_use`) is its run's.
fn stopped_at_process_memory(run: &RunReport) -> bool {
    run.verdict == Verdict::Inconclusive
        && run
            .inconclusive_reason
            .as_deref()
            .is_some_and(tso_engine::resources::is_process_memory_limit)
}

/// What `-v` says of where the race search ran, and why there.
pub(crate) fn placement(settings: &CheckSettings, beside: &Beside) -> String {
    let cores = match settings.cores {
        1 => "1 core".to_owned(),
        n => format!("{n} cores"),
    };
    let why = match settings.race_search_order {
        RaceSearchOrder::Auto if settings.race_search_beside() => {
            format!("{cores} for this run, the TSO search on {}", settings.jobs)
        }
        RaceSearchOrder::Auto => format!(
            "no core idle: {cores} for this run, the TSO search on {}",
            settings.jobs
        ),
        RaceSearchOrder::After => "--race-search-order after".to_owned(),
        RaceSearchOrder::Beside => "--race-search-order beside".to_owned(),
    };
    match beside {
        Beside::Ran(_) => format!(
            "beside the TSO run ({why}); its time by phase is what the check waited for it \
             after the TSO run"
        ),
        Beside::NotPlanned => format!("after the TSO run ({why})"),
        Beside::NotStarted => {
            format!("after the TSO run, which called for it only as it ended ({why})")
        }
        Beside::SharedMemory => format!(
            "after the TSO run: beside it, the two reached the memory limit they shared ({why})"
        ),
    }
}
