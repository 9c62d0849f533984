//! `cargo tso test`: discover the tests the build scripts declare, compile them
//! (cached), run them in parallel, report like libtest.

pub mod catalog;
pub mod discovery;
pub mod expect;
pub mod progress;
pub mod report;
pub mod runner;
pub mod selection;
pub mod sweep;
pub mod units;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;

use crate::cli::{ColorChoice, MemoryModel, TestArgs, TestFormat};
use crate::compile::{Cache, Toolchain};
use crate::pipeline;
use crate::settings::{bound_name, CheckSettings};
use catalog::TestCase;
use discovery::PackageSelection;
use expect::Status;
use report::{human::Human, Paint, Reporter, SuiteInfo, Summary};
use runner::{Event, Job, TestResult};
use selection::{Filter, Plan};

/// Exit status when a test fails or the tests cannot be built, as `cargo test`.
pub const EXIT_TEST_FAILED: i32 = 101;

fn cache_dir(target_dir: &std::path::Path) -> PathBuf {
    std::env::var_os("CARGO_TSO_CACHE_DIR").map_or_else(|| target_dir.join("tso"), PathBuf::from)
}

fn format_of(args: &TestArgs) -> TestFormat {
    if args.quiet && args.format == TestFormat::Pretty {
        TestFormat::Terse
    } else {
        args.format
    }
}

fn list(cases: &[TestCase], selected: &[(usize, Plan)], format: TestFormat) {
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

pub fn run(args: &TestArgs) -> i32 {
    pipeline::quiet_panics();
    let format = format_of(args);
    let selection = PackageSelection {
        manifest_path: args.manifest_path.clone(),
        packages: args.packages.clone(),
        workspace: args.workspace,
        quiet: args.quiet || format == TestFormat::Json,
    };
    let discovered = match discovery::discover(&selection) {
        Ok(d) => d,
        Err(error) => {
            eprintln!("error: {error}");
            return EXIT_TEST_FAILED;
        }
    };
    let toolchain = match Toolchain::locate() {
        Ok(t) => t,
        Err(error) => {
            eprintln!("error: {error}");
            return EXIT_TEST_FAILED;
        }
    };
    let cache = Cache::new(cache_dir(&discovered.target_dir), toolchain);
    let (units, counts) =
        match units::build_all(&cache, &discovered.manifests, &args.opt_level, args.verbose) {
            Ok(built) => built,
            Err(error) => {
                eprintln!("error: {error}");
                return EXIT_TEST_FAILED;
            }
        };
    let cases = catalog::cases(units);
    let filter = Filter {
        filters: args.filters.clone(),
        exact: args.exact,
        skip: args.skip.clone(),
        ignored_only: args.ignored,
        include_ignored: args.include_ignored,
    };
    let (selected, filtered_out) = filter.apply(&cases);
    if args.list {
        list(&cases, &selected, format);
        return 0;
    }

    let bounds: Vec<u32> = match args.checking.memory_model {
        MemoryModel::Sc => args.sb_bound.0.iter().copied().take(1).collect(),
        MemoryModel::Tso => args.sb_bound.0.clone(),
    };
    let sweeping = bounds.len() > 1;
    let mut base = CheckSettings::from_args(&args.checking, bounds.first().copied().unwrap_or(32));
    base.show_details = args.verbose;
    let job_name = |case: &TestCase, bound: u32| {
        if sweeping {
            format!("{} [sb={}]", case.name, bound_name(bound))
        } else {
            case.name.clone()
        }
    };

    let mut jobs = Vec::new();
    let mut ignored = Vec::new();
    for &(index, plan) in &selected {
        match plan {
            Plan::Ignore => ignored.push(index),
            Plan::Run => jobs.extend(bounds.iter().map(|&bound| Job { case: index, bound })),
        }
    }
    let names: Vec<String> = jobs
        .iter()
        .map(|j| job_name(&cases[j.case], j.bound))
        .collect();

    let paint = Paint {
        enabled: match args.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
            }
        },
    };
    let mut reporter: Box<dyn Reporter> = match format {
        TestFormat::Json => Box::new(report::json::Json {
            settings: base.clone(),
        }),
        TestFormat::Pretty => Box::new(Human::new(false, args.verbose, paint)),
        TestFormat::Terse => Box::new(Human::new(true, args.verbose, paint)),
    };
    let start = Instant::now();
    reporter.suite_started(&SuiteInfo {
        count: jobs.len() + ignored.len(),
        cache: counts,
    });
    let mut results: Vec<TestResult> = Vec::new();
    for index in ignored {
        let case = &cases[index];
        reporter.test_started(&case.name);
        let result = TestResult {
            name: case.name.clone(),
            case: index,
            bound: base.sb_bound,
            status: Status::Ignored,
            message: String::new(),
            outcome: None,
            sc: None,
            exec_time: Default::default(),
        };
        reporter.test_finished(&result, case);
        results.push(result);
    }

    let progress = progress::Progress::new(jobs.len(), format != TestFormat::Json);
    let threads = args
        .test_threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let live = progress.job_callback();
    runner::run(
        &cases,
        &jobs,
        &names,
        &base,
        threads,
        live,
        |event| match event {
            Event::Started(index) => {
                progress.started(index, &names[index]);
                progress.suspend(|| reporter.test_started(&names[index]));
            }
            Event::Finished(index, result) => {
                progress.finished(index);
                progress.suspend(|| reporter.test_finished(&result, &cases[result.case]));
                results.push(*result);
            }
        },
    );
    progress.finish();

    // Report failures in plan order (test, then bound), not in completion order.
    let bound_position = |bound: u32| bounds.iter().position(|&b| b == bound).unwrap_or(0);
    results.sort_by_key(|r| (r.case, bound_position(r.bound)));

    if sweeping {
        let test_names: Vec<String> = cases.iter().map(|c| c.name.clone()).collect();
        let tables = sweep::tables(&test_names, &results, &bounds);
        reporter.sweep(&tables);
    }
    let summary = Summary::of(&results, filtered_out, start.elapsed());
    reporter.suite_finished(&results, &summary);
    if summary.ok() {
        0
    } else {
        EXIT_TEST_FAILED
    }
}
