//! The programs a reduction is compared on against the search without it
//! (`differential_por`, `differential_dpor`): a sample of the litmus tests and of the
//! verdict corpus, generated TSO programs, race programs and programs whose states are
//! reached again by other paths, each a [`Case`];
//! and [`check_all`], which runs a comparison over them in parallel. `TSO_POR_ALL=1`
//! takes every litmus and corpus program instead of a sample.

use crate::check::{CheckResult, CheckRun, Model};
use crate::{corpus, gen_race, gen_revisit, gen_tso, parallel};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One case: a program and how to check it.
pub struct Case {
    pub path: PathBuf,
    pub model: Model,
    pub tool_args: Vec<String>,
    pub clang_args: Vec<String>,
    /// Whether the final outcomes are collected (and so compared).
    pub outcomes: bool,
}

impl Case {
    /// How messages name the case: the program, the model, the clang arguments.
    pub fn name(&self) -> String {
        format!(
            "{} under {} [{}]",
            corpus::short(&self.path),
            self.model.as_str(),
            self.clang_args.join(" ")
        )
    }

    /// The case checked on `jobs` workers with `extra` switches after its own.
    pub fn run(&self, extra: &[&str], jobs: usize) -> CheckResult {
        let mut args = self.tool_args.clone();
        args.extend(extra.iter().map(|a| a.to_string()));
        let mut r = CheckRun::new(&self.path, self.model)
            .tool_args(&args)
            .clang_args(&self.clang_args)
            .jobs(jobs);
        if self.outcomes {
            r = r.outcomes();
        }
        r.run()
    }
}

/// A field of a run's JSON report.
pub fn field<'a>(r: &'a CheckResult, key: &str) -> Option<&'a Value> {
    r.json.as_ref()?.get(key)
}

/// One item in `every`, unless `TSO_POR_ALL` is set.
fn sample<T>(items: Vec<T>, every: usize) -> Vec<T> {
    if std::env::var_os("TSO_POR_ALL").is_some() {
        return items;
    }
    items.into_iter().step_by(every).collect()
}

/// `path` as it is, under SC and under TSO, outcomes collected.
fn under_sc_and_tso(path: PathBuf) -> [Case; 2] {
    [Model::Sc, Model::Tso].map(|model| Case {
        path: path.clone(),
        model,
        tool_args: Vec::new(),
        clang_args: Vec::new(),
        outcomes: true,
    })
}

/// One litmus test in `every`, under SC and TSO, outcomes collected.
pub fn litmus_cases(every: usize) -> Vec<Case> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(crate::suite_dir().join("litmus"))
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "c"));
    files.sort();
    sample(files, every)
        .into_iter()
        .flat_map(under_sc_and_tso)
        .collect()
}

/// One corpus program in `every` under the suite's folder `under`, with the last clang
/// argument set it names, under SC and TSO.
pub fn corpus_cases(under: &str, every: usize) -> Vec<Case> {
    let files = corpus::sources_under(&crate::suite_dir().join(under));
    let programs: Vec<corpus::Program> = files
        .iter()
        .filter_map(|f| corpus::read_program(f).ok())
        .collect();
    sample(programs, every)
        .into_iter()
        .flat_map(|p| {
            let args = p.clang_arg_sets().pop().unwrap_or_default();
            [Model::Sc, Model::Tso].map(|model| Case {
                path: p.path.clone(),
                model,
                tool_args: p.check_args.clone(),
                clang_args: args.clone(),
                outcomes: false,
            })
        })
        .collect()
}

/// The programs `source` generates for `count` soak seeds, written to `dir` as
/// `PREFIX_SEED.c` (a seed whose file cannot be written is left out).
fn written(
    dir: &Path,
    count: u64,
    prefix: &str,
    source: impl Fn(u64) -> String,
) -> impl Iterator<Item = PathBuf> {
    let dir = dir.to_path_buf();
    let prefix = prefix.to_owned();
    crate::soak_seeds(count).filter_map(move |seed| {
        let path = dir.join(format!("{prefix}_{seed}.c"));
        std::fs::write(&path, source(seed)).ok()?;
        Some(path)
    })
}

/// `count` generated TSO programs (`gen_tso`, from the soak seeds), written to `dir`,
/// each under SC and under TSO with store-buffer bounds 2 and 0, outcomes collected.
pub fn generated_cases(dir: &Path, count: u64) -> Vec<Case> {
    written(dir, count, "seed", |seed| gen_tso::generate(seed).to_c())
        .flat_map(|path| {
            [(Model::Sc, 0), (Model::Tso, 2), (Model::Tso, 0)].map(|(model, bound)| Case {
                path: path.clone(),
                model,
                tool_args: vec!["--sb-bound".into(), bound.to_string()],
                clang_args: Vec::new(),
                outcomes: true,
            })
        })
        .collect()
}

/// `count` generated race programs (`gen_race`: plain and atomic accesses, locks,
/// fences, pointers), written to `dir`, under SC with `--races warn`: a reduction must
/// find the same races.
pub fn race_cases(dir: &Path, count: u64) -> Vec<Case> {
    written(dir, count, "race", |seed| gen_race::generate(seed).to_c())
        .map(|path| Case {
            path,
            model: Model::Sc,
            tool_args: vec!["--races".into(), "warn".into()],
            clang_args: Vec::new(),
            outcomes: false,
        })
        .collect()
}

/// `count` generated programs whose states are reached again by other paths
/// (`gen_revisit`), written to `dir`, under SC and under TSO, outcomes collected.
pub fn revisit_cases(dir: &Path, count: u64) -> Vec<Case> {
    written(dir, count, "revisit", |seed| {
        gen_revisit::generate(seed).source
    })
    .flat_map(under_sc_and_tso)
    .collect()
}

/// Runs `compare` on every case in parallel and fails with the first problems it
/// returns.
pub fn check_all(cases: Vec<Case>, what: &str, compare: impl Fn(&Case) -> Vec<String> + Sync) {
    assert!(!cases.is_empty(), "no {what} cases");
    let problems: Vec<String> = parallel::map(&cases, compare)
        .into_iter()
        .flatten()
        .collect();
    let shown: Vec<&str> = problems.iter().take(5).map(String::as_str).collect();
    assert!(
        problems.is_empty(),
        "{} problem(s) in {} {what} runs (first {} shown):\n\n{}",
        problems.len(),
        cases.len(),
        shown.len(),
        shown.join("\n\n")
    );
}
