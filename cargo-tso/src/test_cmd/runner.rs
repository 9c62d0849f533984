//! Running tests in parallel (`--test-threads`). Workers take jobs from a shared
//! counter and send events to the caller's thread, which does all the reporting
//! (nextest's runner/reporter split). A job is one test at its bounds, run as one
//! sweep (`checking::sweep`). Each bound is isolated: a panic or an internal error
//! fails that test at that bound only. With `--fail-fast` no job, nor bound of a
//! sweep, starts after a failure.

use std::ops::ControlFlow;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use test_support::Expectation;

use crate::checking::{self, CheckRequest, Checked, SweepRequest, WantsFences};
use crate::fences::FenceSuggestion;
use crate::ordering_suggestion::OrderingSuggestion;
use crate::pipeline::{self, PipelineError, Request, Snapshot, SnapshotFn};
use crate::render;
use crate::robustness::Robustness;
use crate::run_report::{RunReport, ScClassification, ScRerun, X86Rerun};
use crate::settings::{bound_name, CheckSettings, MemoryModel};
use crate::test_cmd::budget::{Budgets, TestBudget};
use crate::test_cmd::catalog::{CaseKind, TestCase};
use crate::test_cmd::expect::{self, Finding, Judgement, Status};
use crate::test_cmd::progress::JobProgressFn;
use crate::test_cmd::units::Unit;

/// One test at its store-buffer bounds (more than one: a sweep, one row per bound).
#[derive(Debug, Clone)]
pub struct Job {
    pub case: usize,
    pub bounds: Vec<u32>,
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
    /// The re-runs on x86 of a C11 failure.
    pub x86: Option<X86Rerun>,
    /// `--suggest-fences`: the suggestion for this failure, when one was searched.
    pub fences: Option<FenceSuggestion>,
    /// `--suggest-fences` under C11: the ordering suggestion for this failure.
    pub orderings: Option<OrderingSuggestion>,
    pub exec_time: Duration,
    /// The memory model the test ran under.
    pub model: MemoryModel,
}

impl TestResult {
    /// What the re-runs under other models say, as a sentence.
    pub fn classification_sentence(&self) -> Option<&'static str> {
        let sc = self.sc.as_ref().map(|s| s.classification.sentence());
        sc.or(self.x86.as_ref().map(|x| x.classification.sentence()))
    }
}

pub enum Event {
    Started(usize),
    /// A job's result at one of its bounds.
    Row(Box<TestResult>),
    /// The job has given all its rows.
    Finished(usize),
    /// The run was interrupted (Ctrl-C, SIGTERM) while this job ran: it has no result.
    Interrupted(usize),
    /// Nothing happened for a while (for the slow-test notice).
    Tick,
}

/// How often the caller hears from the runner while tests are running.
const TICK: Duration = Duration::from_millis(250);

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

/// What running one case gives.
struct CaseRun {
    judgement: Judgement,
    note: Option<String>,
    outcome: Option<RunReport>,
    /// The SC re-run of a TSO failure.
    sc: Option<ScRerun>,
    /// The x86 re-runs of a C11 failure.
    x86: Option<X86Rerun>,
    /// `--suggest-fences`: the fences for a TSO failure.
    fences: Option<FenceSuggestion>,
    /// `--suggest-fences` under C11: the stronger orders or fences for a failure.
    orderings: Option<OrderingSuggestion>,
}

impl CaseRun {
    fn judged(judgement: Judgement, note: Option<String>, outcome: RunReport) -> CaseRun {
        CaseRun {
            judgement,
            note,
            outcome: Some(outcome),
            sc: None,
            x86: None,
            fences: None,
            orderings: None,
        }
    }
}

/// A case that cannot be checked: its judgement and why.
fn not_checked(expectation: Option<Expectation>, note: String) -> CaseRun {
    CaseRun {
        judgement: Judgement::not_checked(expectation),
        note: Some(note),
        outcome: None,
        sc: None,
        x86: None,
        fences: None,
        orderings: None,
    }
}

/// What a case checks with: its entry, its expectation and its settings (the build
/// script's `Tests::races`, unless `--races` was given or the model is C11, under
/// which a race always fails: a racy program has no defined behaviour); else its expectation, if
/// known, and why it cannot be checked.
fn case_check<'c>(
    case: &'c TestCase,
    settings: &CheckSettings,
) -> Result<(&'c str, Expectation, CheckSettings), (Option<Expectation>, String)> {
    let (entry, expectation) = match &case.kind {
        CaseKind::Broken { message } => return Err((None, message.clone())),
        CaseKind::Check { entry, expectation } => (entry.as_str(), *expectation),
    };
    if case.unit.bitcode.is_err() {
        return Err((Some(expectation), "the test file has no module".to_owned()));
    }
    let settings = match case.unit.races {
        Some(races) if !settings.races_explicit && settings.memory_model != MemoryModel::C11 => {
            settings.with_races(races)
        }
        _ => settings.clone(),
    };
    Ok((entry, expectation, settings))
}

/// Judges one bound's check of a case.
fn judge_checked(
    case: &TestCase,
    entry: &str,
    expectation: Expectation,
    settings: &CheckSettings,
    checked: Result<Checked, PipelineError>,
) -> CaseRun {
    let model = settings.memory_model;
    let mut checked = match checked {
        Ok(checked) => checked,
        Err(error) => return not_checked(Some(expectation), error.to_string()),
    };
    if let Some(report) = &checked.robustness {
        // A violation is explained by the stale read behind it.
        let judgement = expect::judge(expectation, model, &checked.outcome, None, None);
        let note = (report.robustness == Robustness::NotRobust)
            .then(|| render::fences::observations_human(&report.observations));
        return CaseRun::judged(judgement, note, checked.outcome);
    }
    let outcome = &mut checked.outcome;
    blame_linked_source(outcome, &case.unit, settings);
    if let Some(test) = test_support::parse_test_symbol(entry) {
        outcome.rename_symbol(entry, &test.name);
    }
    let judgement = expect::judge(
        expectation,
        model,
        outcome,
        checked.sc.as_ref(),
        checked.x86.as_ref(),
    );
    let note = render::orderings::suggestion_human(
        checked.orderings.as_ref(),
        checked.fences.as_ref(),
        settings,
        false,
    );
    CaseRun {
        judgement,
        note,
        outcome: Some(checked.outcome),
        sc: checked.sc,
        x86: checked.x86,
        fences: checked.fences,
        orderings: checked.orderings,
    }
}

/// Whether `--suggest-fences` looks for fences for this judgement: a failure that needs
/// TSO (under C11: that passes under SC), unexpected or expected by a
/// `TSO_TEST_SHOULD_FAIL_UNDER_TSO` or `TSO_TEST_SHOULD_FAIL_UNDER_C11` test.
fn wants_fences(judgement: &Judgement, expectation: Expectation) -> bool {
    let needs_tso = judgement.classification == Some(ScClassification::NeedsTso);
    let declared = judgement.finding == Finding::FailedAsExpected
        && matches!(
            expectation,
            Expectation::ShouldFailUnderTso(_) | Expectation::ShouldFailUnderC11(_)
        );
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
    /// The test's name.
    name: String,
    /// Search workers for this job (`search_workers`).
    workers: usize,
    progress: Option<&'a JobProgressFn>,
}

/// Runs one test at each of its bounds, as one sweep (`checking::sweep`), and gives
/// each bound's result to `on_row` as it comes, until `on_row` breaks. Each bound is
/// isolated: a panic fails that bound only.
fn run_job(
    cases: &[TestCase],
    job: &Job,
    base: &CheckSettings,
    context: JobContext<'_>,
    on_row: &mut dyn FnMut(TestResult) -> ControlFlow<()>,
) {
    let case = &cases[job.case];
    let mut settings = match case.model {
        Some(model) => base.under_model(model),
        None => base.clone(),
    };
    let budget = context.budgets.for_test(case.unit.budget);
    budget.apply(&mut settings);
    // The idle cores this job may use, searched as measured fastest for that many.
    let search = crate::settings::choose_search(context.workers);
    settings.jobs = search.workers;
    settings.search_why = search.why;
    settings.cores = context.workers;
    let index = context.index;
    let progress = context.progress.map(|report| {
        let report = Arc::clone(report);
        Arc::new(move |snapshot: &Snapshot| report(index, snapshot)) as SnapshotFn
    });
    let row_name = |bound: u32| match job.bounds.len() {
        1 => context.name.clone(),
        _ => format!("{} [sb={}]", context.name, bound_name(bound)),
    };
    let check = case_check(case, &settings);
    let (entry, expectation, settings) = match &check {
        Ok((entry, expectation, settings)) => (*entry, *expectation, settings),
        Err(_) => ("", Expectation::ShouldPass, &settings),
    };
    let model = settings.memory_model;
    let robust = expectation == Expectation::Robust && model == MemoryModel::Tso;
    // --suggest-fences: a failure that needs TSO gets its fences, unexpected or declared
    // with `TSO_TEST_SHOULD_FAIL_UNDER_TSO` (the fix it documents); not a robustness test.
    let wants = move |outcome: &RunReport, sc: Option<&ScRerun>, x86: Option<&X86Rerun>| {
        wants_fences(
            &expect::judge(expectation, model, outcome, sc, x86),
            expectation,
        )
    };
    let bitcode = case.unit.bitcode.as_ref().ok();
    let request = bitcode.map(|bitcode| SweepRequest {
        check: CheckRequest {
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
        },
        bounds: &job.bounds,
    });
    let mut rows = request.as_ref().map(checking::sweep);
    for &bound in &job.bounds {
        let start = Instant::now();
        let name = row_name(bound);
        let run = catch_unwind(AssertUnwindSafe(|| match (&check, rows.as_mut()) {
            (Ok(_), Some(rows)) => {
                let row = rows.next().expect("a row per bound");
                debug_assert_eq!(row.bound, bound);
                inject_fault(&name);
                judge_checked(case, entry, expectation, settings, row.checked)
            }
            (Err((expectation, why)), _) => {
                inject_fault(&name);
                not_checked(*expectation, why.clone())
            }
            (Ok(_), None) => unreachable!("a case with a module has a request"),
        }));
        let run = run.unwrap_or_else(|payload| {
            not_checked(
                case.expectation(),
                format!(
                    "internal error: {}\n(this is a bug in cargo-tso; please report it with the test file)",
                    pipeline::panic_message(payload.as_ref())
                ),
            )
        });
        let result = row_result(name, (job.case, bound, model), run, start, &budget);
        if on_row(result).is_break() {
            return;
        }
    }
}

/// A row's result: `run` with its wall time, and the budget under an inconclusive
/// judgement.
fn row_result(
    name: String,
    (case, bound, model): (usize, u32, MemoryModel),
    run: CaseRun,
    start: Instant,
    budget: &TestBudget,
) -> TestResult {
    let CaseRun {
        mut judgement,
        mut note,
        mut outcome,
        sc,
        x86,
        fences,
        orderings,
    } = run;
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
        name,
        case,
        bound,
        judgement,
        note,
        outcome,
        sc,
        x86,
        fences,
        orderings,
        exec_time,
        model,
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
    let context = |index: usize, running: usize| JobContext {
        budgets: &budgets,
        index,
        name: names[index].clone(),
        workers: search_workers(cores, threads, running, jobs.len() - index - 1),
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
                let Some(job) = jobs.get(index) else { break };
                if sender.send(Event::Started(index)).is_err() {
                    break;
                }
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                let (mut cut_off, mut gone) = (false, false);
                run_job(cases, job, base, context(index, now), &mut |result| {
                    if interrupted()
                        && matches!(
                            result.judgement.status,
                            Status::Inconclusive | Status::InconclusiveAllowed
                        )
                    {
                        // Stopped by the interrupt: no result (a pass or a failure
                        // found before it is one).
                        cut_off = true;
                        return ControlFlow::Break(());
                    }
                    let failed = fail_fast && result.judgement.status.is_failure();
                    if failed {
                        stop.store(true, Ordering::SeqCst);
                    }
                    gone = sender.send(Event::Row(Box::new(result))).is_err();
                    if failed || gone {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                });
                running.fetch_sub(1, Ordering::SeqCst);
                if cut_off {
                    let _ = sender.send(Event::Interrupted(index));
                    break;
                }
                if gone || sender.send(Event::Finished(index)).is_err() {
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
            for (index, job) in jobs.iter().enumerate() {
                if interrupted() {
                    break;
                }
                on_event(Event::Started(index));
                let mut failed = false;
                run_job(cases, job, base, context(index, 1), &mut |result| {
                    failed = result.judgement.status.is_failure();
                    on_event(Event::Row(Box::new(result)));
                    match fail_fast && failed {
                        true => ControlFlow::Break(()),
                        false => ControlFlow::Continue(()),
                    }
                });
                on_event(Event::Finished(index));
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
