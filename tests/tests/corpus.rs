//! The verdict corpus: every program in tests/programs/** reaches the verdict and
//! error kind its header states, at -O0 and -O2 (unless `clang-args` fixes the flags),
//! under SC and under TSO; programs with a `.stdout` print exactly that, and programs
//! with an `error-contains` header fail with a message containing its text.
//!
//! Each test checks all programs and reports every mismatch in one message.

use std::time::Instant;
use tso_suite::check::{self, CheckRun, Model};
use tso_suite::corpus::{self, Program};
use tso_suite::parallel;

fn programs() -> Vec<Program> {
    let files = corpus::sources_under(&tso_suite::suite_dir().join("programs"));
    assert!(
        files.len() >= 50,
        "the corpus shrank to {} programs",
        files.len()
    );
    let (ok, bad): (Vec<_>, Vec<_>) = files
        .iter()
        .map(|f| corpus::read_program(f))
        .partition(|r| r.is_ok());
    let bad: Vec<String> = bad.into_iter().filter_map(|r| r.err()).collect();
    assert!(
        bad.is_empty(),
        "unreadable corpus headers:\n  {}",
        bad.join("\n  ")
    );
    ok.into_iter().filter_map(|r| r.ok()).collect()
}

/// Check every program under `model` with one search worker (depth-first) and with two
/// (breadth-first); the mismatches, one paragraph each. Both must match the header,
/// and a passing program must store the same number of states with either.
fn verdict_mismatches(model: Model) -> (usize, Vec<String>) {
    let programs = programs();
    let jobs: Vec<(&Program, Vec<String>)> = programs
        .iter()
        .flat_map(|p| p.clang_arg_sets().into_iter().map(move |a| (p, a)))
        .collect();
    let runs = check::run_all_on_workers(
        &jobs,
        |_| true,
        |(program, args)| {
            CheckRun::new(&program.path, model)
                .tool_args(&program.check_args)
                .clang_args(args)
        },
    );
    let bad = jobs.iter().zip(&runs).map(|((program, args), runs)| {
        let expect = program.expect(model);
        let r = &runs.first;
        let message_ok = program
            .error_contains
            .as_deref()
            .is_none_or(|want| r.error_message().is_some_and(|m| m.contains(want)));
        let ok = r.exit == Some(expect.exit_status())
            && r.verdict() == Some(expect.verdict())
            && r.error_kind() == expect.kind()
            && message_ok;
        let name = format!("{} [{}]", corpus::short(&program.path), args.join(" "));
        if !ok {
            return Some(format!(
                "{name} -j 1: expected {expect}{} under {}: {r}",
                program
                    .error_contains
                    .as_deref()
                    .map_or(String::new(), |w| format!(
                        " with a message containing `{w}`"
                    )),
                model.as_str()
            ));
        }
        runs.difference().map(|d| format!("{name}: {d}"))
    });
    let bad: Vec<String> = bad.into_iter().flatten().collect();
    (2 * jobs.len(), bad)
}

fn assert_corpus(model: Model) {
    let started = Instant::now();
    let (runs, bad) = verdict_mismatches(model);
    eprintln!(
        "corpus under {}: {runs} runs, {} mismatches, {:?}",
        model.as_str(),
        bad.len(),
        started.elapsed()
    );
    assert!(
        bad.is_empty(),
        "{} of {runs} corpus runs under {} disagree with their header:\n\n{}",
        bad.len(),
        model.as_str(),
        bad.join("\n\n")
    );
}

#[test]
fn corpus_verdicts_under_sc() {
    assert_corpus(Model::Sc);
}

#[test]
fn corpus_verdicts_under_tso() {
    assert_corpus(Model::Tso);
}

/// `--show-output --format json` puts the program's printed output in the JSON
/// `output` field; it must equal NAME.stdout byte for byte.
#[test]
fn corpus_stdout_matches() {
    let programs: Vec<Program> = programs()
        .into_iter()
        .filter(|p| p.stdout.is_some())
        .collect();
    assert!(
        !programs.is_empty(),
        "no program in the corpus has a .stdout file"
    );
    let jobs: Vec<(&Program, Vec<String>)> = programs
        .iter()
        .flat_map(|p| p.clang_arg_sets().into_iter().map(move |a| (p, a)))
        .collect();
    let bad: Vec<String> = parallel::map(&jobs, |(program, args)| {
        let want = program.stdout.as_deref().unwrap_or_default();
        let r = CheckRun::new(&program.path, Model::Sc)
            .show_output()
            .clang_args(args)
            .run();
        match r.output() {
            Some(got) if got == want && r.passed() => None,
            Some(got) if got == want => Some(format!(
                "{} [{}]: output right but {}",
                corpus::short(&program.path),
                args.join(" "),
                r
            )),
            Some(got) => Some(format!(
                "{} [{}]: output differs\n--- expected\n{want}--- got\n{got}---",
                corpus::short(&program.path),
                args.join(" ")
            )),
            None => Some(format!(
                "{} [{}]: no `output` field in the JSON: {}",
                corpus::short(&program.path),
                args.join(" "),
                r
            )),
        }
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(
        bad.is_empty(),
        "{} of {} --show-output runs differ from NAME.stdout:\n\n{}",
        bad.len(),
        jobs.len(),
        bad.join("\n\n")
    );
}

/// C11 allows every behaviour of SC and TSO (and more), so a program that passes
/// under c11 must pass under both: checked on every corpus program at its first set
/// of clang flags. A program the header expects to fail under SC or TSO that passes
/// under c11 means the C11 machine lost a behaviour. The headers' verdicts are for
/// `--races warn` unless their `check-args` say otherwise, so the c11 run uses the
/// same: with `deny` a racy program fails under c11 on its race and shows nothing.
#[test]
fn corpus_passes_under_c11_only_what_passes_under_sc_and_tso() {
    let programs = programs();
    let runs = parallel::map(&programs, |program| {
        let args = program
            .clang_arg_sets()
            .into_iter()
            .next()
            .unwrap_or_default();
        let races: &[&str] = if program.check_args.iter().any(|a| a == "--races") {
            &[]
        } else {
            &["--races", "warn"]
        };
        CheckRun::new(&program.path, Model::C11)
            .tool_args(&program.check_args)
            .tool_args(races)
            .clang_args(&args)
            .run()
    });
    let passed: Vec<(&Program, &check::CheckResult)> = programs
        .iter()
        .zip(&runs)
        .filter(|(_, r)| r.passed())
        .collect();
    // Many programs fail under c11 (weak behaviours of their volatile ints), but the
    // atomics programs pass: a run that passes nothing checks nothing.
    assert!(
        passed.len() >= 20,
        "only {} of {} corpus programs pass under c11",
        passed.len(),
        programs.len()
    );
    let bad: Vec<String> = passed
        .iter()
        .filter(|(p, _)| {
            p.expect(Model::Sc).verdict() != "pass" || p.expect(Model::Tso).verdict() != "pass"
        })
        .map(|(p, r)| {
            format!(
                "{}: passes under c11, header expects {} under sc and {} under tso: {r}",
                corpus::short(&p.path),
                p.expect(Model::Sc),
                p.expect(Model::Tso)
            )
        })
        .collect();
    eprintln!(
        "corpus under c11: {} of {} programs pass",
        passed.len(),
        programs.len()
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
