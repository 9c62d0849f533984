//! One run of `cargo tso check FILE --format json`, and what it answered.

use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The memory model a run uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Model {
    Sc,
    Tso,
    C11,
}

impl Model {
    pub fn as_str(self) -> &'static str {
        match self {
            Model::Sc => "sc",
            Model::Tso => "tso",
            Model::C11 => "c11",
        }
    }
}

/// The options of one `cargo tso check` invocation.
#[derive(Clone, Debug)]
pub struct CheckRun {
    pub file: PathBuf,
    pub model: Model,
    /// `None` leaves the tool's default bound.
    pub sb_bound: Option<u32>,
    pub outcomes: bool,
    pub show_output: bool,
    pub reference_machine: bool,
    pub clang_args: Vec<String>,
    /// Workers (`--jobs`); `None` takes `TSO_CHECK_JOBS`, else 1: the suites run their
    /// checks side by side on every core (`parallel::map`), as `cargo tso test` shares
    /// the cores between its tests.
    pub jobs: Option<usize>,
    /// Further `cargo tso check` options (e.g. `--allow-nontermination`).
    pub tool_args: Vec<String>,
    /// Wall-clock limit; the process is killed past it (a hang is a test failure).
    pub wall_limit: Duration,
}

impl CheckRun {
    pub fn new(file: impl Into<PathBuf>, model: Model) -> CheckRun {
        CheckRun {
            file: file.into(),
            model,
            sb_bound: None,
            outcomes: false,
            show_output: false,
            reference_machine: false,
            clang_args: Vec::new(),
            jobs: None,
            tool_args: Vec::new(),
            wall_limit: Duration::from_secs(120),
        }
    }
    pub fn jobs(mut self, jobs: usize) -> Self {
        self.jobs = Some(jobs);
        self
    }
    pub fn sb_bound(mut self, bound: u32) -> Self {
        self.sb_bound = Some(bound);
        self
    }
    pub fn outcomes(mut self) -> Self {
        self.outcomes = true;
        self
    }
    pub fn show_output(mut self) -> Self {
        self.show_output = true;
        self
    }
    pub fn reference_machine(mut self) -> Self {
        self.reference_machine = true;
        self
    }
    pub fn tool_args<S: AsRef<str>>(mut self, args: &[S]) -> Self {
        self.tool_args
            .extend(args.iter().map(|a| a.as_ref().to_string()));
        self
    }
    pub fn clang_args<S: AsRef<str>>(mut self, args: &[S]) -> Self {
        self.clang_args
            .extend(args.iter().map(|a| a.as_ref().to_string()));
        self
    }

    /// The arguments after the binary name: cargo runs subcommands as `cargo-tso tso ...`.
    pub fn args(&self) -> Vec<String> {
        let mut a: Vec<String> = vec![
            "tso".into(),
            "check".into(),
            self.file.display().to_string(),
        ];
        a.extend([
            "--format".into(),
            "json".into(),
            "--memory-model".into(),
            self.model.as_str().into(),
        ]);
        if let Some(b) = self.sb_bound {
            a.extend(["--sb-bound".into(), b.to_string()]);
        }
        let jobs = self
            .jobs
            .or_else(|| std::env::var("TSO_CHECK_JOBS").ok()?.parse().ok())
            .unwrap_or(1);
        a.extend(["--jobs".into(), jobs.to_string()]);
        if self.outcomes {
            a.push("--outcomes".into());
        }
        if self.show_output {
            a.push("--show-output".into());
        }
        if self.reference_machine {
            a.push("--reference-machine".into());
        }
        a.extend(self.tool_args.iter().cloned());
        if !self.clang_args.is_empty() {
            a.push("--".into());
            a.extend(self.clang_args.iter().cloned());
        }
        a
    }

    /// A command line a person can paste to reproduce this run.
    pub fn command_line(&self) -> String {
        format!("cargo {}", self.args().join(" "))
    }

    pub fn run(&self) -> CheckResult {
        run_binary(
            &crate::binary::cargo_tso(),
            &self.args(),
            self.wall_limit,
            self.command_line(),
        )
    }

    /// This run, and when `compare` also with one search worker (depth-first) and with
    /// two (breadth-first) side by side (see [`WorkerRuns`]).
    pub fn run_on_workers(&self, compare: bool) -> WorkerRuns {
        if compare {
            WorkerRuns {
                first: self.clone().jobs(1).run(),
                two_workers: Some(self.clone().jobs(2).run()),
            }
        } else {
            WorkerRuns {
                first: self.run(),
                two_workers: None,
            }
        }
    }
}

/// `check(item)` for every item, on all cores (`parallel::map`), and with one and with two
/// search workers for the items where `compare(index)` holds. The two runs of an item
/// are separate work items, so a long check does not run twice in a row at the end.
pub fn run_all_on_workers<T: Sync>(
    items: &[T],
    compare: impl Fn(usize) -> bool,
    check: impl Fn(&T) -> CheckRun + Sync,
) -> Vec<WorkerRuns> {
    let work: Vec<(usize, Option<usize>)> = (0..items.len())
        .flat_map(|i| {
            let workers: &[Option<usize>] = if compare(i) {
                &[Some(1), Some(2)]
            } else {
                &[None]
            };
            workers.iter().map(move |&w| (i, w))
        })
        .collect();
    let results = crate::parallel::map(&work, |&(i, workers)| {
        let run = check(&items[i]);
        match workers {
            Some(n) => run.jobs(n).run(),
            None => run.run(),
        }
    });
    let mut runs: Vec<WorkerRuns> = Vec::with_capacity(items.len());
    for (&(i, workers), r) in work.iter().zip(results) {
        if workers == Some(2) {
            runs[i].two_workers = Some(r);
        } else {
            runs.push(WorkerRuns {
                first: r,
                two_workers: None,
            });
        }
    }
    runs
}

/// Every `every`-th item (by its index) is checked with both worker counts; all of them
/// when `TSO_WORKERS_ALL` is set. A fixed sample, so CI coverage does not vary.
pub fn compare_workers(index: usize, every: usize) -> bool {
    std::env::var_os("TSO_WORKERS_ALL").is_some() || index.is_multiple_of(every.max(1))
}

/// One check as a suite judges it, and the same check with two search workers when the
/// suite compares worker counts. The suite judges `first`; `difference` then holds the
/// second run to the engine's contract (ARCHITECTURE.md, "Exploration is deterministic,
/// for any number of workers"), so it meets the same expectations.
#[derive(Clone, Debug)]
pub struct WorkerRuns {
    /// With one worker when compared, else with the suite's default (`TSO_CHECK_JOBS`).
    pub first: CheckResult,
    pub two_workers: Option<CheckResult>,
}

impl WorkerRuns {
    /// How the two-worker run differs from the one-worker run, if it does: exit status,
    /// verdict and error kind always; for a passing run also the stored state count and
    /// the outcome set (`--outcomes`). Not the printed output (`--show-output`): that is
    /// the first complete execution each search happens to reach.
    pub fn difference(&self) -> Option<String> {
        let two = self.two_workers.as_ref()?;
        worker_difference(&self.first, two)
    }
}

/// See [`WorkerRuns::difference`]; `one` ran with one worker, `two` with two.
pub fn worker_difference(one: &CheckResult, two: &CheckResult) -> Option<String> {
    let field = |r: &CheckResult, key: &str| r.json.as_ref().and_then(|j| j.get(key)).cloned();
    let mut differs: Vec<&str> = Vec::new();
    if one.exit != two.exit {
        differs.push("exit status");
    }
    if one.verdict() != two.verdict() {
        differs.push("verdict");
    }
    if one.error_kind() != two.error_kind() {
        differs.push("error kind");
    }
    if one.passed() {
        for key in ["states", "outcomes"] {
            if field(one, key) != field(two, key) {
                differs.push(key);
            }
        }
    }
    let states = |r: &CheckResult| r.states().map_or("?".into(), |n| n.to_string());
    (!differs.is_empty()).then(|| {
        format!(
            "one and two search workers differ in {} ({} / {} states)\n      one: {one}\n      two: {two}",
            differs.join(", "),
            states(one),
            states(two)
        )
    })
}

/// Verdict, error kind, error location and outcomes ([`CheckResult::answer`]).
pub type Answer = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<std::collections::BTreeSet<String>>,
);

/// The problem, if any, with two runs of `name` that must give the same answer (each
/// with its label): one without JSON, or answers that differ.
pub fn answer_difference(
    name: &str,
    (a_label, a): (&str, &CheckResult),
    (b_label, b): (&str, &CheckResult),
) -> Option<String> {
    if a.json.is_none() || b.json.is_none() {
        return Some(format!("{name}: no JSON:\n  {a}\n  {b}"));
    }
    (a.answer() != b.answer()).then(|| {
        format!(
            "{name}: answers differ\n  {a_label}: {:?}\n  {b_label}: {:?}",
            a.answer(),
            b.answer()
        )
    })
}

/// Where a differential suite's run comes from ([`differential_runs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Litmus,
    Random,
    /// The index of the corpus program.
    Corpus(usize),
}

/// A differential suite's runs, named: every litmus test under TSO with outcomes,
/// random TSO programs (`gen_tso`, bound 2, outcomes) from `TSO_SEED` on, `programs`
/// of them, and every `every`-th corpus program at its own flags (-O1 by default)
/// under SC and TSO.
pub fn differential_runs(
    dir: &std::path::Path,
    ci_programs: u64,
    every: usize,
) -> Vec<(Origin, String, CheckRun)> {
    let mut runs = Vec::new();
    let tests = crate::litmus::read_dir(&crate::suite_dir().join("litmus"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(tests.len() >= 20, "the litmus corpus shrank");
    for t in &tests {
        let run = CheckRun::new(&t.source, Model::Tso).outcomes();
        runs.push((Origin::Litmus, format!("litmus {}", t.name), run));
    }
    for seed in crate::soak_seeds(ci_programs) {
        let p = crate::gen_tso::generate(seed);
        let path = dir.join(format!("seed_{seed}.c"));
        std::fs::write(&path, p.to_c()).expect("write program");
        let run = CheckRun::new(&path, Model::Tso).sb_bound(2).outcomes();
        runs.push((Origin::Random, format!("random seed {seed}"), run));
    }
    let files = crate::corpus::sources_under(&crate::suite_dir().join("programs"));
    for (i, file) in files.iter().enumerate().step_by(every.max(1)) {
        let program = crate::corpus::read_program(file).unwrap_or_else(|e| panic!("{e}"));
        for model in [Model::Sc, Model::Tso] {
            let clang: Vec<String> = program
                .clang_args
                .clone()
                .unwrap_or_else(|| vec!["-O1".to_string()]);
            let run = CheckRun::new(file, model)
                .tool_args(&program.check_args)
                .clang_args(&clang);
            let name = format!("{} {}", file.display(), model.as_str());
            runs.push((Origin::Corpus(i), name, run));
        }
    }
    runs
}

/// Run `compare` on every run side by side (`parallel::map`) and fail with every
/// problem it names.
pub fn assert_no_problems(
    runs: &[(String, CheckRun)],
    compare: impl Fn(&str, &CheckRun) -> Option<String> + Sync,
) {
    let problems = crate::parallel::map(runs, |(name, run)| compare(name, run));
    assert_none_differ(problems);
}

/// Fails listing every run that differs (`Some(problem)`), and how many of all did.
pub fn assert_none_differ(problems: Vec<Option<String>>) {
    let runs = problems.len();
    let problems: Vec<String> = problems.into_iter().flatten().collect();
    assert!(
        problems.is_empty(),
        "{} of {runs} runs differ:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// What one run answered. `json` is `None` when stdout was not one JSON object.
#[derive(Clone, Debug)]
pub struct CheckResult {
    pub command: String,
    /// `None` when the process was killed (signal or wall-clock limit).
    pub exit: Option<i32>,
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
    pub json: Option<Value>,
    pub wall: Duration,
}

impl CheckResult {
    /// A run made with [`crate::binary::run_limited`] (output through files), read the
    /// same way; `command` is how to reproduce it.
    pub fn from_run(command: String, run: crate::binary::Run) -> CheckResult {
        let json = serde_json::from_str::<Value>(run.stdout.trim())
            .ok()
            .filter(|v| v.is_object());
        CheckResult {
            command,
            exit: run.code,
            timed_out: run.timed_out,
            stdout: run.stdout,
            stderr: run.stderr,
            json,
            wall: run.elapsed,
        }
    }

    pub fn verdict(&self) -> Option<&str> {
        self.json.as_ref()?.get("verdict")?.as_str()
    }
    /// The run as differential suites compare it: verdict, error kind, error
    /// location, outcomes.
    pub fn answer(&self) -> Answer {
        let location = self.json.as_ref().and_then(|j| {
            j.get("error")?
                .get("location")?
                .as_str()
                .map(str::to_string)
        });
        (
            self.verdict().map(str::to_string),
            self.error_kind().map(str::to_string),
            location,
            self.outcomes(),
        )
    }
    pub fn error_kind(&self) -> Option<&str> {
        self.json.as_ref()?.get("error")?.get("kind")?.as_str()
    }
    pub fn error_message(&self) -> Option<&str> {
        self.json.as_ref()?.get("error")?.get("message")?.as_str()
    }
    pub fn states(&self) -> Option<u64> {
        self.json.as_ref()?.get("states")?.as_u64()
    }
    /// The printed output of the program (`--show-output` with `--format json`).
    pub fn output(&self) -> Option<&str> {
        self.json.as_ref()?.get("output")?.as_str()
    }
    /// The set of complete-execution outputs (`--outcomes`), each with its trailing
    /// newline trimmed.
    pub fn outcomes(&self) -> Option<BTreeSet<String>> {
        let list = self.json.as_ref()?.get("outcomes")?.as_array()?;
        list.iter()
            .map(|o| o.as_str().map(|s| s.trim_end_matches('\n').to_string()))
            .collect()
    }
    /// The run found no error and explored everything (exit 0, verdict pass).
    pub fn passed(&self) -> bool {
        self.exit == Some(0) && self.verdict() == Some("pass")
    }

    /// A short account for failure messages: command, exit, verdict, error, stderr tail.
    pub fn summary(&self) -> String {
        let mut s = format!("`{}` -> exit {:?}", self.command, self.exit);
        if self.timed_out {
            s.push_str(&format!(" (killed after {:?})", self.wall));
        }
        match &self.json {
            Some(_) => {
                s.push_str(&format!(", verdict {:?}", self.verdict().unwrap_or("?")));
                if let Some(k) = self.error_kind() {
                    s.push_str(&format!(
                        ", error {k}: {}",
                        self.error_message().unwrap_or("")
                    ));
                }
            }
            None => s.push_str(&format!(", stdout not JSON: {:?}", tail(&self.stdout, 300))),
        }
        let err = self.stderr.trim();
        if !err.is_empty() {
            s.push_str(&format!(
                "\n      stderr: {}",
                tail(err, 400).replace('\n', "\n              ")
            ));
        }
        s
    }
}

impl fmt::Display for CheckResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.summary())
    }
}

fn tail(s: &str, n: usize) -> &str {
    let start = s.len().saturating_sub(n);
    let start = (start..=s.len())
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(s.len());
    &s[start..]
}

/// Run `bin args`, killing it after `limit`.
pub fn run_binary(bin: &Path, args: &[String], limit: Duration, command: String) -> CheckResult {
    let started = Instant::now();
    let mut command_builder = Command::new(bin);
    command_builder
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Keep the tool's bitcode cache beside the binary, not in the user's home.
    if std::env::var_os("CARGO_TSO_CACHE_DIR").is_none() {
        if let Some(dir) = bin.parent().and_then(Path::parent) {
            command_builder.env("CARGO_TSO_CACHE_DIR", dir.join("tso-suite-cache"));
        }
    }
    let spawned = command_builder.spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => panic!("cannot start {}: {e}", bin.display()),
    };
    // Drain both pipes on their own threads so a chatty child cannot block on a full pipe.
    let mut out_pipe = child.stdout.take();
    let mut err_pipe = child.stderr.take();
    let out_reader = std::thread::spawn(move || read_all(out_pipe.as_mut()));
    let err_reader = std::thread::spawn(move || read_all(err_pipe.as_mut()));
    let mut timed_out = false;
    let mut nap = Duration::from_micros(200);
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) if started.elapsed() > limit => {
                let _ = child.kill();
                timed_out = true;
                break child.wait().ok();
            }
            Ok(None) => {
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(20));
            }
            Err(_) => break None,
        }
    };
    let stdout = out_reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    let json = serde_json::from_str::<Value>(stdout.trim())
        .ok()
        .filter(|v| v.is_object());
    CheckResult {
        command,
        exit: if timed_out {
            None
        } else {
            status.and_then(|s| s.code())
        },
        timed_out,
        stdout,
        stderr,
        json,
        wall: started.elapsed(),
    }
}

fn read_all<R: Read>(r: Option<&mut R>) -> String {
    let mut buf = Vec::new();
    if let Some(r) = r {
        let _ = r.read_to_end(&mut buf);
    }
    String::from_utf8_lossy(&buf).into_owned()
}
