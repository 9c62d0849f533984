//! Running tests in parallel (`--test-threads`). Workers take jobs from a shared
//! counter and send events to the caller's thread, which does all the reporting
//! (nextest's runner/reporter split). Each job is isolated: a panic or an internal
//! error fails that test only. With `--fail-fast` no job starts after a failure.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, OnceLock};
use std::time::{Duration, Instant};

use test_support::Expectation;

use crate::checking::{self, CheckRequest, WantsFences};
use crate::fences::FenceSuggestion;
use crate::pipeline::{self, Request, Snapshot, SnapshotFn};
use crate::render;
use crate::robustness::Robustness;
use crate::run_report::{RunReport, ScClassification, ScRerun};
use crate::settings::{CheckSettings, MemoryModel};
use crate::test_cmd::budget::Budgets;
use crate::test_cmd::catalog::{CaseKind, TestCase};
use crate::test_cmd::expect::{self, Finding, Judgement, Status};
use crate::test_cmd::progress::JobProgressFn;
use crate::test_cmd::units::Unit;

/// One test at one store-buffer bound.
#[derive(Debug, Clone, Copy)]
pub struct Job {
    pub case: usize,
    pub bound: u32,
}

/// The reported result of a job.
#[derive(Debug, Clone)]
pub struct TestResult {
    /// The name shown (with `[sb=N]` in a sweep).
    pub name: String,
    pub case: usize,
    pub bound: u32,
    pub judgement: Judgement,
    /// Why there is no outcome (compile diagnostics, a load or internal error); with
    /// an outcome, what follows its explanation (robustness observation, fences).
    pub note: Option<String>,
    pub outcome: Option<RunReport>,
    pub sc: Option<ScRerun>,
    /// `--suggest-fences`: the suggestion for this failure, when one was searched.
    pub fences: Option<FenceSuggestion>,
    pub exec_time: Duration,
}

pub enum Event {
    Started(usize),
    Finished(usize, Box<TestResult>),
    /// The run was interrupted (Ctrl-C, SIGTERM) while this job ran: it has no result.
    Interrupted(usize),
    /// Nothing happened for a while (for the slow-test notice).
    Tick,
}

/// How often the caller hears from the runner while tests are running.
const TICK: Duration = Duration::from_millis(250);

/// The settings of one run: the base ones at the job's bound.
/// Cores for a job that starts while `running` jobs (itself included) run and `left`
/// more wait: the machine's cores shared by the tests that run side by side. The job
/// searches them with `settings::choose_search` (depth-first on one worker unless the
/// breadth-first search was measured faster for that many).
/// While the queue is long each test gets its share (one worker each when there are
/// as many test threads as cores: the depth-first search, the least memory); a test
/// that starts alone at the end of a run gets every core. Running tests are not
/// re-balanced, so the machine is never oversubscribed.
fn search_workers(cores: usize, test_threads: usize, running: usize, left: usize) -> usize {
    let side_by_side = test_threads.min(running + left).max(1);
    (cores / side_by_side).max(1)
}

fn settings_at(base: &CheckSettings, bound: u32) -> CheckSettings {
    CheckSettings {
        sb_bound: bound,
        ..base.clone()
    }
}

/// What running one case gives: the judgement, the note, the run, its SC re-run, and
/// the fence suggestion (`--suggest-fences`).
type CaseRun = (
    Judgement,
    Option<String>,
    Option<RunReport>,
    Option<ScRerun>,
    Option<FenceSuggestion>,
);

fn run_case(
    case: &TestCase,
    settings: &CheckSettings,
    sc_memo: &OnceLock<ScRerun>,
    progress: Option<SnapshotFn>,
) -> CaseRun {
    let (entry, expectation) = match &case.kind {
        CaseKind::Broken { message } => {
            return (
                Judgement::not_checked(None),
                Some(message.clone()),
                None,
                None,
                None,
            )
        }
        CaseKind::Check { entry, expectation } => (entry, *expectation),
    };
    // The build script's `Tests::races`, unless `--races` was given.
    let own_races;
    let settings = match case.unit.races {
        Some(races) if !settings.races_explicit => {
            own_races = settings.with_races(races);
            &own_races
        }
        _ => settings,
    };
    let Ok(bitcode) = &case.unit.bitcode else {
        return (
            Judgement::not_checked(Some(expectation)),
            Some("the test file has no module".to_owned()),
            None,
            None,
            None,
        );
    };
    let model = settings.memory_model;
    let robust = expectation == Expectation::Robust && model == MemoryModel::Tso;
    // --suggest-fences: a failure that needs TSO gets its fences, unexpected or declared
    // with `TSO_TEST_SHOULD_FAIL_UNDER_TSO` (the fix it documents); not a robustness test.
    let wants = move |outcome: &RunReport, sc: Option<&ScRerun>| {
        wants_fences(&expect::judge(expectation, model, outcome, sc), expectation)
    };
    let request = CheckRequest {
        run: Request {
            bitcode,
            entry,
            settings,
            collect_outcomes: false,
            emit_instrumented: None,
            progress,
            target: expect::target(expectation, model),
        },
        robustness: robust,
        fences: (settings.suggest_fences && !robust).then_some(&wants as &WantsFences),
        // The SC verdict does not depend on the bound: computed once per test. Expected
        // failures are classified too: "needs TSO" is what such a test usually documents.
        sc_memo: Some(sc_memo),
    };
    let mut checked = match checking::check(&request) {
        Ok(checked) => checked,
        Err(error) => {
            return (
                Judgement::not_checked(Some(expectation)),
                Some(error.to_string()),
                None,
                None,
                None,
            )
        }
    };
    if let Some(report) = &checked.robustness {
        // A violation is explained by the stale read behind it.
        let judgement = expect::judge(expectation, model, &checked.outcome, None);
        let note = (report.robustness == Robustness::NotRobust)
            .then(|| render::fences::observations_human(&report.observations));
        return (judgement, note, Some(checked.outcome), None, None);
    }
    let outcome = &mut checked.outcome;
    blame_linked_source(outcome, &case.unit, settings);
    if let Some(test) = test_support::parse_test_symbol(entry) {
        outcome.rename_symbol(entry, &test.name);
    }
    let judgement = expect::judge(expectation, model, outcome, checked.sc.as_ref());
    let note = checked
        .fences
        .as_ref()
        .map(|s| render::fences::human(s, settings, false));
    (
        judgement,
        note,
        Some(checked.outcome),
        checked.sc,
        checked.fences,
    )
}

/// Whether `--suggest-fences` looks for fences for this judgement: a failure that needs
/// TSO, unexpected or expected by a `TSO_TEST_SHOULD_FAIL_UNDER_TSO` test.
fn wants_fences(judgement: &Judgement, expectation: Expectation) -> bool {
    let needs_tso = judgement.classification == Some(ScClassification::NeedsTso);
    let declared = judgement.finding == Finding::FailedAsExpected
        && matches!(expectation, Expectation::ShouldFailUnderTso(_));
    needs_tso && (judgement.finding == Finding::UnexpectedFailure || declared)
}

/// When the TSO pass refused a module linked from several sources, names the extra
/// source (`.source(...)`) that brought the construct in: every test linked with it
/// fails the same way, and a `Tests` group without it keeps the other tests checkable.
fn blame_linked_source(outcome: &mut RunReport, unit: &Unit, settings: &CheckSettings) {
    if !pipeline::instrumentation_refused(outcome) {
        return;
    }
    let Some(culprit) = unit
        .linked
        .iter()
        .find(|linked| pipeline::refuses_instrumentation(&linked.bitcode, settings))
    else {
        return;
    };
    if let Some(error) = &mut outcome.error {
        error.message.push_str(&format!(
            "\nbrought in by {}, which build.rs links into this test with `.source(...)`; \
             tests that do not need it can be declared in a `Tests` group without it",
            crate::render::paths::display_path(&culprit.source.display().to_string())
        ));
    }
}

/// Tests of the isolation guarantee make one named test hit an internal error:
/// `CARGO_TSO_INJECT_INTERNAL_ERROR=<test name>`.
fn inject_fault(name: &str) {
    if std::env::var("CARGO_TSO_INJECT_INTERNAL_ERROR").is_ok_and(|n| n == name) {
        panic!("injected internal error (CARGO_TSO_INJECT_INTERNAL_ERROR)");
    }
}

/// What a job needs besides its own description: where it reports progress.
struct JobContext<'a> {
    budgets: &'a Budgets,
    index: usize,
    name: String,
    /// Search workers for this job (`search_workers`).
    workers: usize,
    sc_memo: &'a OnceLock<ScRerun>,
    progress: Option<&'a JobProgressFn>,
}

fn run_job(
    cases: &[TestCase],
    job: Job,
    base: &CheckSettings,
    context: JobContext<'_>,
) -> TestResult {
    let start = Instant::now();
    let mut settings = settings_at(base, job.bound);
    let case = &cases[job.case];
    let budget = context.budgets.for_test(case.unit.budget);
    budget.apply(&mut settings);
    // The idle cores this job may use, searched as measured fastest for that many.
    let search = crate::settings::choose_search(context.workers);
    settings.jobs = search.workers;
    settings.search_why = search.why;
    // Each test (each bound of a sweep) has the whole --timeout for its searches.
    settings.start_clock();
    let index = context.index;
    let progress = context.progress.map(|report| {
        let report = Arc::clone(report);
        Arc::new(move |snapshot: &Snapshot| report(index, snapshot)) as SnapshotFn
    });
    let case = &cases[job.case];
    let (mut judgement, mut note, mut outcome, sc, fences) = match catch_unwind(AssertUnwindSafe(|| {
        inject_fault(&context.name);
        run_case(case, &settings, context.sc_memo, progress)
    })) {
        Ok(result) => result,
        Err(payload) => (
            Judgement::not_checked(case.expectation()),
            Some(format!(
                "internal error: {}\n(this is a bug in cargo-tso; please report it with the test file)",
                pipeline::panic_message(payload.as_ref())
            )),
            None,
            None,
            None,
        ),
    };
    let exec_time = start.elapsed();
    if let Some(outcome) = &mut outcome {
        // The result line's time is the wall time of the whole test: its searches
        // and what lies between them (loading, instrumenting, replaying).
        pipeline::add_other_time(outcome, exec_time);
    }
    if judgement.status == Status::Inconclusive {
        if budget.allows_inconclusive() {
            judgement.status = Status::InconclusiveAllowed;
        }
        let line = budget.describe();
        note = Some(note.map_or(line.clone(), |n| format!("{n}{line}")));
    }
    TestResult {
        name: context.name,
        case: job.case,
        bound: job.bound,
        judgement,
        note,
        outcome,
        sc,
        fences,
        exec_time,
    }
}

/// How to run the jobs.
pub struct RunConfig {
    pub threads: usize,
    pub budgets: Budgets,
    /// Set by Ctrl-C or SIGTERM: running jobs stop, no job starts.
    pub interrupt: Arc<AtomicBool>,
    /// Start no job after one has failed.
    pub fail_fast: bool,
    pub progress: Option<JobProgressFn>,
}

/// Runs `jobs` on `config.threads` workers; `names[i]` is job i's display name.
/// Calls `on_event` on this thread as jobs start and finish (and with `Tick` while
/// nothing happens), and the progress callback (if any) on the workers with a job's
/// index and the engine's figures so far. Jobs not started (fail-fast) get no event.
pub fn run(
    cases: &[TestCase],
    jobs: &[Job],
    names: &[String],
    base: &CheckSettings,
    config: RunConfig,
    mut on_event: impl FnMut(Event),
) {
    let RunConfig {
        threads,
        budgets,
        interrupt,
        fail_fast,
        progress,
    } = config;
    let mut base = base.clone();
    base.interrupt = Some(Arc::clone(&interrupt));
    let base = &base;
    let interrupted = || interrupt.load(Ordering::SeqCst);
    let stop = AtomicBool::new(false);
    let next = AtomicUsize::new(0);
    let running = AtomicUsize::new(0);
    let cores = crate::settings::cores();
    let sc_memos: Vec<OnceLock<ScRerun>> = cases.iter().map(|_| OnceLock::new()).collect();
    let context = |index: usize, running: usize| JobContext {
        budgets: &budgets,
        index,
        name: names[index].clone(),
        workers: search_workers(cores, threads, running, jobs.len() - index - 1),
        sc_memo: &sc_memos[jobs[index].case],
        progress: progress.as_ref(),
    };
    let (sender, receiver) = mpsc::channel::<Event>();
    std::thread::scope(|scope| {
        let workers = threads.clamp(1, jobs.len().max(1));
        let mut spawned = 0;
        for worker in 0..workers {
            let sender = sender.clone();
            let (next, context, stop, running) = (&next, &context, &stop, &running);
            let interrupted = &interrupted;
            let body = move || loop {
                if stop.load(Ordering::SeqCst) || interrupted() {
                    break;
                }
                let index = next.fetch_add(1, Ordering::SeqCst);
                let Some(&job) = jobs.get(index) else { break };
                if sender.send(Event::Started(index)).is_err() {
                    break;
                }
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                let result = run_job(cases, job, base, context(index, now));
                running.fetch_sub(1, Ordering::SeqCst);
                if interrupted()
                    && matches!(
                        result.judgement.status,
                        Status::Inconclusive | Status::InconclusiveAllowed
                    )
                {
                    // Stopped by the interrupt: no result (a pass or a failure found
                    // before it is one).
                    let _ = sender.send(Event::Interrupted(index));
                    break;
                }
                if fail_fast && result.judgement.status.is_failure() {
                    stop.store(true, Ordering::SeqCst);
                }
                if sender
                    .send(Event::Finished(index, Box::new(result)))
                    .is_err()
                {
                    break;
                }
            };
            let spawn = std::thread::Builder::new()
                .name(format!("tso-test-{worker}"))
                .stack_size(pipeline::WORKER_STACK_SIZE)
                .spawn_scoped(scope, body);
            if spawn.is_ok() {
                spawned += 1;
            }
        }
        drop(sender);
        if spawned == 0 {
            // No thread could be started: run everything here.
            for (index, &job) in jobs.iter().enumerate() {
                if interrupted() {
                    break;
                }
                on_event(Event::Started(index));
                let result = run_job(cases, job, base, context(index, 1));
                let failed = result.judgement.status.is_failure();
                on_event(Event::Finished(index, Box::new(result)));
                if fail_fast && failed {
                    break;
                }
            }
            return;
        }
        loop {
            match receiver.recv_timeout(TICK) {
                Ok(event) => on_event(event),
                Err(mpsc::RecvTimeoutError::Timeout) => on_event(Event::Tick),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::search_workers;

    #[test]
    fn cores_are_shared_between_tests_side_by_side() {
        // A long queue on 2 cores and 2 test threads: one worker per test.
        assert_eq!(search_workers(2, 2, 1, 10), 1);
        assert_eq!(search_workers(8, 2, 2, 10), 4);
        // The last test, started alone: every core.
        assert_eq!(search_workers(8, 2, 1, 0), 8);
        // The last test, started while another still runs: its share only.
        assert_eq!(search_workers(8, 2, 2, 0), 4);
        // `--test-threads 1`: each test gets every core.
        assert_eq!(search_workers(4, 1, 1, 5), 4);
        // More test threads than cores: never fewer than one worker.
        assert_eq!(search_workers(2, 16, 3, 40), 1);
    }
}
