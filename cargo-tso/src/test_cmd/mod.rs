//! `cargo tso test`: discover the tests the build scripts declare and compile them
//! (cached) — *list*; select and shard them into jobs — *plan*; run the jobs in
//! parallel — *run*; judge and report like libtest — *report*.

pub mod budget;
pub mod catalog;
pub mod discovery;
pub mod expect;
pub mod interrupt;
pub mod options;
pub mod partition;
pub mod progress;
pub mod report;
pub mod runner;
pub mod selection;
pub mod sweep;
pub mod units;

use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::check_cmd::EXIT_TOOL_ERROR;
use crate::cli::{ColorChoice, TestArgs, TestFormat};
use crate::compile::{Cache, Toolchain};
use crate::pipeline;
use crate::settings::CheckSettings;
use crate::settings::MemoryModel;
use catalog::TestCase;
use discovery::PackageSelection;
use expect::Judgement;
use options::LibtestOptions;
use report::{human::Human, Paint, Reporter, SuiteInfo, Summary};
use runner::{Event, Job, RunConfig, TestResult};
use selection::{Filter, Plan, Selection};
use units::CacheCounts;

/// Exit status when a test fails or the tests cannot be built, as `cargo test`.
pub const EXIT_TEST_FAILED: i32 = 101;

/// The store-buffer bound of a test when neither `--sb-bound` nor its build script
/// gives one.
const DEFAULT_SB_BOUND: u32 = 32;

fn cache_dir(target_dir: &std::path::Path) -> PathBuf {
    std::env::var_os("CARGO_TSO_CACHE_DIR").map_or_else(|| target_dir.join("tso"), PathBuf::from)
}

/// Stage 1: the declared tests, compiled.
fn list_tests(args: &TestArgs, format: TestFormat) -> Result<(Vec<TestCase>, CacheCounts), String> {
    let selection = PackageSelection {
        cargo: args.cargo.clone(),
        quiet: args.libtest.quiet || format == TestFormat::Json,
    };
    let discovered = discovery::discover(&selection).map_err(|e| e.to_string())?;
    let toolchain = Toolchain::locate().map_err(|e| e.to_string())?;
    let cache = Cache::new(cache_dir(&discovered.target_dir), toolchain);
    let (units, counts) = units::build_all(
        &cache,
        &discovered.manifests,
        args.opt_level.as_deref(),
        args.verbose,
    )
    .map_err(|e| e.to_string())?;
    Ok((catalog::cases(units), counts))
}

fn print_list(cases: &[TestCase], selected: &[(usize, Plan)], format: TestFormat) {
    for &(index, _) in selected {
        let case = &cases[index];
        match format {
            TestFormat::Json => println!(
                "{}",
                json!({ "type": "test", "event": "discovered", "name": case.name, "ignored": case.ignored, "source_path": case.unit.path })
            ),
            _ => println!("{}: test", case.name),
        }
    }
    if format == TestFormat::Pretty {
        let plural = if selected.len() == 1 { "" } else { "s" };
        println!("\n{} test{plural}, 0 benchmarks", selected.len());
    }
}

/// Stage 2: what to run. Every selected test at every bound (one job each, its bounds
/// swept in turn), and the ignored ones, reported without running.
struct TestPlan {
    bounds: Vec<u32>,
    base: CheckSettings,
    jobs: Vec<Job>,
    /// Display name of each job.
    names: Vec<String>,
    ignored: Vec<usize>,
}

impl TestPlan {
    fn new(args: &TestArgs, cases: &[TestCase], selection: &Selection) -> TestPlan {
        // No --sb-bound: each test at its build script's bound, else 32.
        let given = args.sb_bound.as_ref().map(|b| b.0.clone());
        let model = args
            .checking
            .memory_model
            .map_or(MemoryModel::Tso, Into::into);
        let bounds: Vec<u32> = match (&given, model) {
            (None, _) => vec![DEFAULT_SB_BOUND],
            // The store-buffer bound means nothing without store buffers.
            (Some(given), MemoryModel::Sc | MemoryModel::C11) => {
                given.iter().copied().take(1).collect()
            }
            (Some(given), MemoryModel::Tso) => given.clone(),
        };
        let mut base =
            CheckSettings::from_args(&args.checking, bounds.first().copied().unwrap_or(32));
        base.show_details = args.verbose;
        let mut jobs = Vec::new();
        let mut ignored = Vec::new();
        for &(index, plan) in &selection.tests {
            match plan {
                Plan::Ignore => ignored.push(index),
                Plan::Run => match (&given, cases[index].unit.budget.sb_bound) {
                    (None, Some(own)) => jobs.push(Job {
                        case: index,
                        bounds: vec![own],
                    }),
                    // A declared model without store buffers: one run, not a sweep.
                    _ if cases[index].model.is_some_and(|m| m != MemoryModel::Tso) => {
                        jobs.push(Job {
                            case: index,
                            bounds: bounds.iter().copied().take(1).collect(),
                        })
                    }
                    _ => jobs.push(Job {
                        case: index,
                        bounds: bounds.clone(),
                    }),
                },
            }
        }
        let names = jobs.iter().map(|j| cases[j.case].name.clone()).collect();
        TestPlan {
            bounds,
            base,
            jobs,
            names,
            ignored,
        }
    }

    fn sweeping(&self) -> bool {
        self.bounds.len() > 1
    }
}

fn reporter(options: &LibtestOptions, verbose: bool, base: &CheckSettings) -> Box<dyn Reporter> {
    let paint = Paint {
        enabled: match options.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
            }
        },
    };
    match options.format {
        TestFormat::Json => Box::new(report::json::Json {
            settings: base.clone(),
        }),
        TestFormat::Pretty => Box::new(Human::new(false, verbose, options.show_output, paint)),
        TestFormat::Terse => Box::new(Human::new(true, verbose, options.show_output, paint)),
    }
}

/// Stage 3: runs the jobs, reporting each as it finishes (a sweep's bounds as rows).
/// Returns the results in plan order (test, then bound).
fn run_jobs(
    args: &TestArgs,
    options: &LibtestOptions,
    cases: &[TestCase],
    plan: &TestPlan,
    reporter: &mut dyn Reporter,
    interrupt: &interrupt::Interrupt,
) -> Vec<TestResult> {
    let progress = progress::Progress::new(plan.jobs.len(), options.format != TestFormat::Json);
    let mut slow = crate::slow::SlowWatch::new(
        Duration::from_secs_f64(args.slow_timeout),
        "`--races allow`, or `.races(Races::Allow)` in the build script,",
    );
    let threads = options.test_threads.unwrap_or_else(crate::settings::cores);
    if args.verbose && options.format != TestFormat::Json {
        let cores = crate::settings::cores();
        eprintln!(
            "search: tests run side by side on {threads} threads; a test that starts while all {cores} cores are idle searches {}{}",
            crate::settings::choose_search(cores).why,
            match plan.base.race_search_order {
                crate::settings::RaceSearchOrder::Auto => "; under TSO its race search runs beside its TSO run when the test's cores leave one idle, else after it",
                crate::settings::RaceSearchOrder::After => "; under TSO its race search runs after its TSO run (--race-search-order after)",
                crate::settings::RaceSearchOrder::Beside => "; under TSO its race search runs beside its TSO run (--race-search-order beside)",
            }
        );
    }
    // Each job's search workers are its share of the cores (`runner::search_workers`).
    let base = plan.base.clone();
    let budgets = budget::Budgets::new(args, threads);
    if args.verbose && options.format != TestFormat::Json {
        eprintln!(
            "budgets: {}",
            budgets
                .for_test(test_support::Budget::default())
                .describe()
                .trim_end()
                .trim_start_matches("budget: ")
        );
    }
    let config = RunConfig {
        threads,
        budgets,
        interrupt: interrupt.flag(),
        fail_fast: args.fail_fast,
        progress: Some(progress.job_callback()),
    };
    let sweeping = plan.sweeping();
    let mut results: Vec<TestResult> = Vec::new();
    let names = &plan.names;
    runner::run(cases, &plan.jobs, names, &base, config, |event| {
        match event {
            Event::Started(index) => {
                progress.started(index, &names[index]);
                slow.started(index, format!("test `{}`", names[index]), Instant::now());
                if !sweeping {
                    progress.suspend(|| reporter.test_started(&names[index]));
                }
            }
            Event::Row(result) => {
                let case = &cases[result.case];
                progress.suspend(|| {
                    if sweeping {
                        reporter.row_finished(&result, case);
                    } else {
                        reporter.test_finished(&result, case);
                    }
                });
                results.push(*result);
            }
            Event::Finished(index) => {
                progress.finished(index);
                slow.finished(index);
            }
            Event::Interrupted(index) => {
                progress.finished(index);
                slow.finished(index);
            }
            Event::Tick => {}
        }
        if interrupt.announce() {
            progress.suspend(|| {
                eprintln!(
                    "{}: stopping the running tests; the summary and JUnit cover the tests that finished (press Ctrl-C again to quit at once)",
                    interrupt.describe()
                )
            });
        }
        for notice in slow.due(Instant::now(), |job| progress.snapshot(job)) {
            progress.suspend(|| eprintln!("{notice}"));
        }
    });
    progress.finish();
    let bound_position = |bound: u32| plan.bounds.iter().position(|&b| b == bound).unwrap_or(0);
    results.sort_by_key(|r| (r.case, bound_position(r.bound)));
    results
}

/// Stage 2a: the tests the filters, `--ignored` and `--partition` select; a filter
/// that matches nothing is warned about.
fn select(args: &TestArgs, options: &LibtestOptions, cases: &[TestCase]) -> Selection {
    let filter = Filter {
        filters: options.filters.clone(),
        exact: options.exact,
        skip: options.skip.clone(),
        ignored_only: options.ignored,
        include_ignored: options.include_ignored,
        partition: args.partition,
        memory_model: args.checking.memory_model.map(Into::into),
    };
    let selection = filter.apply(cases);
    for unmatched in &selection.unmatched_filters {
        let how = if options.exact { "is named" } else { "matches" };
        eprintln!("warning: no test {how} the filter `{unmatched}`");
    }
    selection
}

/// Reports the ignored tests (not run) and returns their results.
fn report_ignored(
    plan: &TestPlan,
    cases: &[TestCase],
    reporter: &mut dyn Reporter,
) -> Vec<TestResult> {
    plan.ignored
        .iter()
        .map(|&index| {
            let case = &cases[index];
            reporter.test_started(&case.name);
            let result = TestResult {
                name: case.name.clone(),
                case: index,
                bound: plan.base.sb_bound,
                judgement: Judgement::ignored(case.expectation()),
                note: None,
                outcome: None,
                sc: None,
                x86: None,
                fences: None,
                orderings: None,
                exec_time: Duration::ZERO,
                model: case.model.unwrap_or(plan.base.memory_model),
            };
            reporter.test_finished(&result, case);
            result
        })
        .collect()
}

/// Stage 4a: one result per test. A sweep shows its tables and judges each test once,
/// at its smallest failing bound.
fn conclude(
    plan: &TestPlan,
    cases: &[TestCase],
    ran: Vec<TestResult>,
    reporter: &mut dyn Reporter,
) -> Vec<TestResult> {
    if !plan.sweeping() {
        return ran;
    }
    let test_names: Vec<String> = cases.iter().map(|c| c.name.clone()).collect();
    let tables = sweep::tables(&test_names, &ran, &plan.bounds);
    reporter.sweep(&tables);
    let mut conclusions = Vec::new();
    for conclusion in tables.iter().filter_map(|t| t.conclusion()) {
        reporter.test_started(&conclusion.name);
        reporter.test_finished(&conclusion, &cases[conclusion.case]);
        conclusions.push(conclusion);
    }
    conclusions
}

/// Planned tests that `--fail-fast` never started (no result for any of their bounds).
fn count_not_run(plan: &TestPlan, results: &[TestResult]) -> usize {
    let started: BTreeSet<usize> = results.iter().map(|r| r.case).collect();
    let planned: BTreeSet<usize> = plan.jobs.iter().map(|j| j.case).collect();
    planned.difference(&started).count()
}

/// Stage 4b: the summary, the JUnit file, the exit code.
fn finish(
    args: &TestArgs,
    reporter: &mut dyn Reporter,
    results: &[TestResult],
    summary: &Summary,
    interrupt: &interrupt::Interrupt,
) -> i32 {
    reporter.suite_finished(results, summary);
    let pages = match &args.html {
        Some(dir) => match report::html::write_pages(dir, results) {
            Ok(pages) => pages,
            Err(error) => {
                eprintln!(
                    "error: cannot write the HTML pages to {}: {error}",
                    dir.display()
                );
                return EXIT_TEST_FAILED;
            }
        },
        None => Default::default(),
    };
    if let Some(path) = &args.junit {
        if let Err(error) = report::junit::write(path, results, summary, &pages) {
            eprintln!(
                "error: cannot write the JUnit report to {}: {error}",
                path.display()
            );
            return EXIT_TEST_FAILED;
        }
    }
    if let Some(code) = interrupt.exit_code() {
        code
    } else if summary.ok() {
        0
    } else {
        EXIT_TEST_FAILED
    }
}

/// `cargo tso test`: list → plan → run → report.
pub fn run(args: &TestArgs) -> i32 {
    pipeline::quiet_panics();
    let options = match LibtestOptions::from_args(args) {
        Ok(options) => options,
        Err(error) if error.is_help() => {
            println!("{error}");
            return 0;
        }
        Err(error) => {
            eprintln!("{error}");
            return EXIT_TOOL_ERROR;
        }
    };
    let (cases, counts) = match list_tests(args, options.format) {
        Ok(listed) => listed,
        Err(error) => {
            eprintln!("error: {error}");
            return EXIT_TEST_FAILED;
        }
    };
    let selection = select(args, &options, &cases);
    if options.list {
        print_list(&cases, &selection.tests, options.format);
        return 0;
    }
    let plan = TestPlan::new(args, &cases, &selection);
    if let Some(why) = plan.base.machine.hangs_unchecked() {
        eprintln!("warning: {why}");
    }
    let interrupt = interrupt::Interrupt::install();
    let mut reporter = reporter(&options, args.verbose, &plan.base);
    let start = Instant::now();
    reporter.suite_started(&SuiteInfo {
        count: selection.tests.len(),
        cache: counts,
    });
    let mut results = report_ignored(&plan, &cases, reporter.as_mut());
    let ran = run_jobs(args, &options, &cases, &plan, reporter.as_mut(), &interrupt);
    results.extend(conclude(&plan, &cases, ran, reporter.as_mut()));
    results.sort_by_key(|r| r.case);
    let not_run = count_not_run(&plan, &results);
    let mut summary = Summary::of(&results, selection.filtered_out, not_run, start.elapsed());
    summary.interrupted = interrupt.describe_if_set();
    finish(args, reporter.as_mut(), &results, &summary, &interrupt)
}
